//! Time in CF files: the units of time coordinates read by hydrokern, `<unit> since <date>`
//! (UDUNITS' form, which CF takes) or a plain unit of time, dates as seconds since 1970-01-01
//! 00:00:00 UTC in the Gregorian calendar, the one CF's `standard` calendar uses for every date
//! of radar or gauge records, and a case's start date as the reference date of the files it
//! writes.

/// A time axis' units: the length of its unit in seconds, and the date its zero stands for (in
/// seconds since 1970-01-01 00:00:00 UTC) when it is dated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeUnits {
    pub seconds: f64,
    pub since: Option<f64>,
}

/// Units of time by their UDUNITS names, with their length in seconds. Months and years are
/// left out: UDUNITS' are fractions of a mean year, not calendar months.
const UNITS: &[(&[&str], f64)] = &[
    (&["milliseconds", "millisecond", "msec", "ms"], 1e-3),
    (&["seconds", "second", "secs", "sec", "s"], 1.0),
    (&["minutes", "minute", "mins", "min"], 60.0),
    (&["hours", "hour", "hrs", "hr", "h"], 3600.0),
    (&["days", "day", "d"], 86400.0),
];

/// Calendars whose dates are Gregorian: CF's `standard` (Gregorian from 1582-10-15, every date
/// a record of rain has) and `proleptic_gregorian`.
pub const GREGORIAN: [&str; 3] = ["standard", "gregorian", "proleptic_gregorian"];

/// The units of a time axis, or why they are not ones this reader takes.
pub fn time_units(units: &str) -> Result<TimeUnits, String> {
    let (unit, since) = match units.split_once(" since ") {
        Some((u, d)) => (u.trim(), Some(d.trim())),
        None => (units.trim(), None),
    };
    let lower = unit.to_ascii_lowercase();
    let Some(&(_, seconds)) = UNITS.iter().find(|(names, _)| names.contains(&lower.as_str())) else {
        let why = if ["months", "month", "years", "year"].contains(&lower.as_str()) {
            "months and years are not of one length; give times in days or finer"
        } else {
            "not a unit of time (seconds, minutes, hours or days)"
        };
        return Err(format!("time units '{units}': {why}"));
    };
    let since = since.map(|d| epoch_seconds(d).map_err(|e| format!("time units '{units}': {e}"))).transpose()?;
    Ok(TimeUnits { seconds, since })
}

/// Seconds since 1970-01-01 00:00:00 UTC of a date as UDUNITS writes it: `2020-06-01`,
/// `2020-6-1 6:30`, `2020-06-01T06:30:00Z`, `2020-06-01 06:30:00.0 +01:00`, ...
pub fn epoch_seconds(text: &str) -> Result<f64, String> {
    let bad = |why: &str| format!("'{text}' is not a date ({why})");
    let mut t = text.trim();
    for zone in ["UTC", "GMT", "Z", "z"] {
        if let Some(rest) = t.strip_suffix(zone) {
            t = rest.trim_end();
            break;
        }
    }
    let (date, rest) = match t.find(['T', 't', ' ']) {
        Some(at) => (&t[..at], t[at + 1..].trim()),
        None => (t, ""),
    };
    let int = |s: &str, most: usize| -> Option<i64> {
        (!s.is_empty() && s.len() <= most && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
    };
    let d: Vec<&str> = date.split('-').collect();
    let [Some(y), Some(m), Some(day)] = [d.first(), d.get(1), d.get(2)].map(|p| p.and_then(|s| int(s, 4))) else {
        return Err(bad("the date is not year-month-day"));
    };
    if d.len() != 3 || !(1..=12).contains(&m) || day < 1 || day > days_in_month(y, m) {
        return Err(bad("no such day"));
    }
    // The time of day, then a zone offset: +hh:mm, +hhmm or +hh (or -).
    let (time, zone) = match rest.find(['+', '-']) {
        Some(at) => (rest[..at].trim(), Some(&rest[at..])),
        None => (rest, None),
    };
    let mut of_day = 0.0;
    if !time.is_empty() {
        let parts: Vec<&str> = time.split(':').collect();
        if parts.len() > 3 {
            return Err(bad("the time of day is not hh:mm:ss"));
        }
        let (h, mm) = (parts.first().and_then(|s| int(s, 2)), parts.get(1).map_or(Some(0), |s| int(s, 2)));
        let s: Option<f64> =
            parts.get(2).map_or(Some(0.0), |s| s.parse().ok().filter(|v: &f64| (0.0..61.0).contains(v)));
        match (h, mm, s) {
            (Some(h), Some(mm), Some(s)) if h < 24 && mm < 60 => of_day = (h * 3600 + mm * 60) as f64 + s,
            _ => return Err(bad("the time of day is not hh:mm:ss")),
        }
    }
    let offset = match zone {
        None => 0,
        Some(z) => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let z = z[1..].trim();
            let (h, m) = match (z.split_once(':'), z.len()) {
                (Some((h, m)), _) => (int(h, 2), int(m, 2).filter(|_| m.len() == 2)),
                (None, 1 | 2) => (int(z, 2), Some(0)),
                (None, 3 | 4) => (int(&z[..z.len() - 2], 2), int(&z[z.len() - 2..], 2)),
                _ => (None, None),
            };
            match (h, m) {
                (Some(h), Some(m)) if h <= 14 && m < 60 => sign * (h * 3600 + m * 60),
                _ => return Err(bad("the zone is not +hh:mm")),
            }
        }
    };
    Ok((days_from_civil(y, m, day) * 86400 - offset) as f64 + of_day)
}

/// A date in seconds since 1970-01-01 00:00:00 UTC as `2020-06-01 06:30:00` (to the second).
pub fn date_text(seconds: f64) -> String {
    let s = seconds.round() as i64;
    let (days, of_day) = (s.div_euclid(86400), s.rem_euclid(86400));
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}", of_day / 3600, of_day / 60 % 60, of_day % 60)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][(m - 1) as usize]
}

/// Days from 1970-01-01 to a Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The Gregorian date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A start date as a case gives it — `2026-11-29`, `2026-11-29T06:30`, `2026-11-29 06:30:00`,
/// with or without a final `Z` (UTC in every case) — in UDUNITS' form `2026-11-29 06:30:00`, or
/// why it is not one.
pub fn reference_date(text: &str) -> std::result::Result<String, String> {
    let bad = |why: &str| format!("'{text}': {why}; give a UTC date and time as 2026-11-29 or 2026-11-29T06:30:00Z");
    let t = text.trim().strip_suffix('Z').unwrap_or(text.trim());
    let (date, time) = match t.split_once(['T', ' ']) {
        Some((d, tm)) => (d, tm),
        None => (t, "00:00:00"),
    };
    let num = |s: &str, digits: usize| {
        (s.len() == digits && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<u32>().unwrap())
    };
    let d: Vec<&str> = date.split('-').collect();
    let (Some(y), Some(m), Some(day)) =
        (d.first().and_then(|s| num(s, 4)), d.get(1).and_then(|s| num(s, 2)), d.get(2).and_then(|s| num(s, 2)))
    else {
        return Err(bad("not a date of the form YYYY-MM-DD"));
    };
    if d.len() != 3 {
        return Err(bad("not a date of the form YYYY-MM-DD"));
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&m) || day == 0 || day > days[m as usize - 1] {
        return Err(bad("no such day"));
    }
    let c: Vec<&str> = time.split(':').collect();
    let parts: Vec<Option<u32>> = c.iter().map(|s| num(s, 2)).collect();
    let (hh, mm, ss) = match parts.as_slice() {
        [Some(h), Some(m)] => (*h, *m, 0),
        [Some(h), Some(m), Some(s)] => (*h, *m, *s),
        _ => return Err(bad("not a time of the form hh:mm or hh:mm:ss")),
    };
    if hh > 23 || mm > 59 || ss > 59 {
        return Err(bad("no such time of day"));
    }
    Ok(format!("{y:04}-{m:02}-{day:02} {hh:02}:{mm:02}:{ss:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_udunits_writes_them() {
        assert_eq!(epoch_seconds("1970-01-01"), Ok(0.0));
        assert_eq!(epoch_seconds("1970-1-1 0:0:0"), Ok(0.0));
        assert_eq!(epoch_seconds("2000-03-01T00:00:00Z"), Ok(951_868_800.0));
        assert_eq!(epoch_seconds("2020-06-01 06:30:00.5 +01:00"), Ok(1_590_989_400.5));
        assert_eq!(epoch_seconds("2020-06-01 06:30 -0130"), epoch_seconds("2020-06-01 08:00"));
        assert_eq!(epoch_seconds("1900-01-01 00:00:00 UTC"), Ok(-2_208_988_800.0));
        for bad in ["2021-02-29", "2020-13-01", "2020-06-01 25:00", "June 1", "2020-06-01 06:30 +1:2:3"] {
            assert!(epoch_seconds(bad).is_err(), "{bad}");
        }
        for s in [-2_208_988_800.0, 0.0, 951_868_800.0, 1_590_989_400.0, 4_107_542_399.0] {
            assert_eq!(epoch_seconds(&date_text(s)), Ok(s), "{}", date_text(s));
        }
        assert_eq!(date_text(1_590_989_400.0), "2020-06-01 05:30:00");
    }

    #[test]
    fn time_units_plain_and_dated() {
        assert_eq!(time_units("seconds"), Ok(TimeUnits { seconds: 1.0, since: None }));
        assert_eq!(time_units("hours since 1970-01-02"), Ok(TimeUnits { seconds: 3600.0, since: Some(86400.0) }));
        assert_eq!(time_units("Minutes since 1970-01-01T00:00:00Z").map(|u| u.seconds), Ok(60.0));
        assert!(time_units("months since 2000-01-01").unwrap_err().contains("not of one length"));
        assert!(time_units("fortnights").unwrap_err().contains("not a unit of time"));
        assert!(time_units("days since yesterday").unwrap_err().contains("not a date"));
    }
}
