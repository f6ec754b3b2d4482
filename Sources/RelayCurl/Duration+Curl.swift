extension Duration {
    /// Whole milliseconds, rounded up, at least 1, for libcurl's `*_MS` options.
    package var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(1, Int(ms))
    }
}
