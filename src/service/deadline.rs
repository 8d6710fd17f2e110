//! The call deadline a gRPC client sends in the `grpc-timeout` request header.

use std::time::Duration;

use tonic::metadata::MetadataMap;

/// The `grpc-timeout` of a request: 1–8 ASCII digits and a unit (`H`, `M`, `S`, `m`, `u`, `n`),
/// per the gRPC over HTTP/2 spec. None when absent or malformed.
pub(crate) fn grpc_timeout(metadata: &MetadataMap) -> Option<Duration> {
    parse(metadata.get("grpc-timeout")?.to_str().ok()?)
}

fn parse(text: &str) -> Option<Duration> {
    if !(2..=9).contains(&text.len()) || !text.is_ascii() {
        return None;
    }
    let (digits, unit) = text.split_at(text.len() - 1);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n * 3600),
        "M" => Duration::from_secs(n * 60),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// How much earlier than the client's deadline the server gives up, so that its
/// DEADLINE_EXCEEDED status reaches the client before the client's own timer (and tonic's
/// server-side timeout, which would answer CANCELLED) fires: a tenth of the timeout, at most
/// 20 ms.
pub(crate) fn with_margin(timeout: Duration) -> Duration {
    timeout - (timeout / 10).min(Duration::from_millis(20))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_unit() {
        assert_eq!(parse("1H"), Some(Duration::from_secs(3600)));
        assert_eq!(parse("2M"), Some(Duration::from_secs(120)));
        assert_eq!(parse("3S"), Some(Duration::from_secs(3)));
        assert_eq!(parse("100m"), Some(Duration::from_millis(100)));
        assert_eq!(parse("99999999u"), Some(Duration::from_micros(99_999_999)));
        assert_eq!(parse("5n"), Some(Duration::from_nanos(5)));
        for bad in ["", "m", "10", "123456789m", "1x", "-1m", "1.5S", "１m"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn margin_is_small() {
        assert_eq!(
            with_margin(Duration::from_millis(100)),
            Duration::from_millis(90)
        );
        assert_eq!(
            with_margin(Duration::from_secs(10)),
            Duration::from_millis(9980)
        );
    }
}
