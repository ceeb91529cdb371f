//! Times as people read them: ms since the Unix epoch as a UTC date; and
//! the clock those times are counted on.

/// `ms` since the Unix epoch as "YYYY-MM-DD HH:MM" in UTC (the proleptic
/// Gregorian calendar, by Howard Hinnant's days-to-civil algorithm; no date
/// crate is needed for one column).
pub fn utc_minute(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// Now, in ms since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `ms` since the Unix epoch as "YYYY-MM-DD HH:MM:SS" (UTC).
pub fn utc_seconds(ms: u64) -> String {
    format!("{}:{:02}", utc_minute(ms), ms / 1000 % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_utc_dates() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00");
        assert_eq!(utc_minute(951_782_400_000), "2000-02-29 00:00");
        assert_eq!(utc_minute(1_795_447_920_000), "2026-11-23 15:32");
        assert_eq!(utc_seconds(1_795_000_000_123), "2026-11-18 11:06:40");
    }
}
