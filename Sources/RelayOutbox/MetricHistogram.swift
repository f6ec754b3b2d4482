/// One series of a Prometheus histogram: cumulative bucket counts over fixed upper bounds, the sum and count
/// of the observations.
struct MetricHistogram: Sendable {
    /// Upper bounds of the buckets, ascending (the `+Inf` bucket is ``count``).
    let bounds: [Double]
    private(set) var buckets: [Int]
    private(set) var sum = 0.0
    private(set) var count = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        buckets = [Int](repeating: 0, count: bounds.count)
    }

    /// Adds one observation.
    mutating func observe(_ value: Double) {
        for (index, bound) in bounds.enumerated() where value <= bound { buckets[index] += 1 }
        sum += value
        count += 1
    }

    /// The series' exposition lines, `labels` being the series' own label pairs (before `le`).
    func lines(name: String, labels: [(String, String)]) -> String {
        var out = ""
        for (index, bound) in bounds.enumerated() {
            let text = RelayMetrics.Labels(pairs: labels + [("le", "\(bound)")]).text
            out += "\(name)_bucket\(text) \(buckets[index])\n"
        }
        out += "\(name)_bucket\(RelayMetrics.Labels(pairs: labels + [("le", "+Inf")]).text) \(count)\n"
        let own = RelayMetrics.Labels(pairs: labels).text
        out += "\(name)_sum\(own) \(sum)\n\(name)_count\(own) \(count)\n"
        return out
    }
}
