//! Today's date, as recordings, ceilings and baselines are dated: UTC, YYYY-MM-DD.

/// Today's UTC date, e.g. "2026-11-23".
pub fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_look_like_dates() {
        let day = today();
        let parts: Vec<&str> = day.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [4, 2, 2],
            "{day}"
        );
        assert!(day.as_str() >= "2026-01-01", "{day}");
    }
}
