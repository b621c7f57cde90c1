//! Figures the Linux kernel reports in `/proc` text files (memory sizes).

/// The value in kB of the line `FIELD: N kB` of the `/proc` text file `path`
/// (e.g. `MemTotal` of `/proc/meminfo`, `VmHWM` of `/proc/self/status`);
/// `None` where the file or the line is missing or malformed (not Linux).
#[must_use]
pub fn kb(path: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::kb;

    #[test]
    fn reads_a_field_and_refuses_a_missing_one() {
        let dir = std::env::temp_dir().join(format!("kingme-proc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("status");
        std::fs::write(
            &f,
            "Name:\tkingme\nVmHWM:\t  12345 kB\nVmRSS:\t 678 kB\nThreads: 3\n",
        )
        .unwrap();
        let p = f.to_str().unwrap();
        assert_eq!(kb(p, "VmHWM"), Some(12345));
        assert_eq!(kb(p, "VmRSS"), Some(678));
        // no unit, a missing field, a field named by a prefix, a missing file
        assert_eq!(kb(p, "Threads"), None);
        assert_eq!(kb(p, "VmPeak"), None);
        assert_eq!(kb(p, "Vm"), None);
        assert_eq!(kb(dir.join("none").to_str().unwrap(), "VmHWM"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
