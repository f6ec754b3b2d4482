import Foundation
import RelayCLI

/// `relay-bench table`: prints the results of one bench run side by side. Each argument is `LABEL=FILE[,FILE...]`,
/// each FILE holding one JSON object as printed by `relay-bench apns|fcm|fanout`, `curl-multi` or the scripts'
/// h2load line: `requests` (or `devices`), `seconds`, and optionally `ok` (or `sent`), `peak_rss_kib`,
/// `cpu_seconds_per_100k` (user plus system CPU seconds per 100,000 pushes, shown for the fastest run) and
/// `server_cpu_seconds_per_100k` (PostgreSQL's, likewise). Several files are repeated runs of one thing, in the
/// order they ran: the row shows the fastest run (the least disturbed by the rest of the machine) and the highest
/// peak RSS of them all. `--pair ROW=REF` (repeatable) pairs the rows labelled `ROW-N` with those labelled `REF-N`,
/// N a number (a fan-out to 1,000 devices, `fanout-1000`, against 1,000 client-only sends, `client-1000`: the same
/// pipeline filling and draining). Each `ROW-N` row gets two columns against its `REF-N` row: the ratio of the
/// fastest runs, and the median of the ratios of the runs paired in order (the i-th run of each, run one after the
/// other, so a slow spell of the machine tends to hit both), with the lowest and highest of them. `ROW=REF@RATIO`
/// gives the pair a target of its own. Every `ROW-N` and `REF-N` row also gets the ratio of its fastest run to that
/// of the `REF` row with the largest N. `--target RATIO` (with `--pair`) then prints, for each `ROW-N` row, whether
/// that paired median is at least RATIO: the figure a target such as "fan-out >= 0.9x the client-only rate" is read
/// by, as the fastest runs of the two may come from different spells of a shared machine. `--against A,B` adds a
/// "vs A" column per label: the ratio of the fastest runs. `--cpu-pair ROW=REF` (repeatable) pairs rows the same
/// way for CPU per push: a column with the median of the paired runs' CPU ratios (ROW's CPU seconds per push over
/// REF's) and their range, and with `--cpu-target RATIO` whether that median is at most RATIO. `--rss FILE` prints
/// the RSS samples of a `relay-bench apns|fcm` result instead.
enum TableCommand {
    static let usage = """
        relay-bench table [--pair ROW=REF[@RATIO]]... [--target RATIO] [--cpu-pair ROW=REF]... [--cpu-target RATIO]
                          [--against LABEL,LABEL] LABEL=FILE[,FILE...]...
        relay-bench table --rss FILE
        """

    /// One run.
    private struct Run {
        var requests: Double
        var ok: Double?
        var seconds: Double
        var peakKiB: Double?
        var cpuPer100k: Double?
        /// The PostgreSQL server's CPU seconds per 100,000 pushes (`relay-bench cluster`).
        var serverCPUPer100k: Double?
        var perSecond: Double { seconds > 0 ? requests / seconds : 0 }
    }

    /// One measured thing: its runs in order, shown by the fastest.
    private struct Row {
        var label: String
        var runs: [Run]
        var fastest: Run { runs.max { $0.perSecond < $1.perSecond }! }
        var peakKiB: Double? { runs.compactMap(\.peakKiB).max() }

        /// N when the label is `prefix-N`.
        func size(after prefix: String) -> Int? {
            label.hasPrefix(prefix + "-") ? Int(label.dropFirst(prefix.count + 1)) : nil
        }

        /// The rate ratios of this row's runs to `reference`'s, paired in order, sorted.
        func pairedRatios(to reference: Row) -> [Double] {
            zip(runs, reference.runs).map { $0.perSecond / max($1.perSecond, 1e-9) }.sorted()
        }

        /// The CPU-per-push ratios of this row's runs to `reference`'s, paired in order, sorted; runs without
        /// a CPU figure are left out.
        func pairedCPURatios(to reference: Row) -> [Double] {
            zip(runs, reference.runs).compactMap { run, other in
                guard let cpu = run.cpuPer100k, let base = other.cpuPer100k, base > 0 else { return nil }
                return cpu / base
            }
            .sorted()
        }
    }

    /// The median of sorted, non-empty `values`: the middle one, or the mean of the two middle ones for an
    /// even count.
    static func median(_ values: [Double]) -> Double {
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }

    /// `--pair ROW=REF[@RATIO]`: the prefixes of the rows compared and of their references, and the pair's
    /// own target instead of `--target`'s.
    private struct Pair {
        var row: String
        var reference: String
        var target: Double?
    }

    static func run(_ words: [String]) throws -> Int32 {
        if words.count == 2, words[0] == "--rss" { return try rss(file: words[1]) }
        var against: [String] = []
        var pairs: [Pair] = []
        var cpuPairs: [Pair] = []
        var target: Double?
        var cpuTarget: Double?
        var rows: [Row] = []
        var iterator = words.makeIterator()
        while let word = iterator.next() {
            if ["--against", "--pair", "--target", "--cpu-pair", "--cpu-target"].contains(word) {
                guard let value = iterator.next() else {
                    throw Arguments.Problem(description: "\(word) needs a value")
                }
                switch word {
                case "--against": against = value.split(separator: ",").map(String.init)
                case "--pair", "--cpu-pair":
                    let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2 else {
                        throw Arguments.Problem(description: "\(word) needs ROW=REF, got '\(value)'")
                    }
                    let reference = parts[1].split(separator: "@", maxSplits: 1).map(String.init)
                    let own = try reference.dropFirst().first.map { text in
                        guard let ratio = Double(text), ratio > 0 else {
                            throw Arguments.Problem(
                                description: "\(word) needs a positive ratio after @, got '\(text)'"
                            )
                        }
                        return ratio
                    }
                    let pair = Pair(row: parts[0], reference: reference[0], target: own)
                    if word == "--pair" { pairs.append(pair) } else { cpuPairs.append(pair) }
                default:
                    guard let ratio = Double(value), ratio > 0 else {
                        throw Arguments.Problem(description: "\(word) needs a positive ratio, got '\(value)'")
                    }
                    if word == "--target" { target = ratio } else { cpuTarget = ratio }
                }
                continue
            }
            guard let equals = word.firstIndex(of: "=") else {
                throw Arguments.Problem(description: "expected LABEL=FILE, got '\(word)'")
            }
            let label = String(word[..<equals])
            let runs = try word[word.index(after: equals)...].split(separator: ",").map { try run(file: String($0)) }
            guard !runs.isEmpty else { throw Arguments.Problem(description: "no file for '\(label)'") }
            rows.append(Row(label: label, runs: runs))
        }
        // A `ROW-N` row's `REF-N` row under `pairs`.
        let matching = { (row: Row, pairs: [Pair]) -> (pair: Pair, row: Row)? in
            for pair in pairs {
                guard let size = row.size(after: pair.row) else { continue }
                return rows.first { $0.label == "\(pair.reference)-\(size)" }.map { (pair, $0) }
            }
            return nil
        }
        let matched = { (row: Row, pairs: [Pair]) in matching(row, pairs)?.row }
        let reference = { (row: Row) in matched(row, pairs) }
        let cpuPaired = { (row: Row) -> (reference: Row, ratios: [Double])? in
            guard let other = matched(row, cpuPairs) else { return nil }
            let ratios = row.pairedCPURatios(to: other)
            return ratios.isEmpty ? nil : (other, ratios)
        }
        // The largest `REF-N` row of a `ROW-N` or `REF-N` row's pair.
        let largest = { (row: Row) -> Row? in
            for pair in pairs where row.size(after: pair.row) != nil || row.size(after: pair.reference) != nil {
                return rows.filter { $0.size(after: pair.reference) != nil }
                    .max { $0.size(after: pair.reference)! < $1.size(after: pair.reference)! }
            }
            return nil
        }
        let paired = { (row: Row) -> [Double]? in
            guard let ratios = reference(row).map(row.pairedRatios), !ratios.isEmpty else { return nil }
            return ratios
        }
        // Each column: its title and, per row, the cell.
        var columns: [(title: String, cell: (Row) -> String)] = []
        if !pairs.isEmpty {
            columns.append(("vs ref same n", { row in reference(row).map { ratio(row.fastest, $0.fastest) } ?? "-" }))
            columns.append(
                (
                    "paired median",
                    { row in
                        guard let ratios = paired(row) else { return "-" }
                        return String(format: "%.2fx %.2f-%.2f", median(ratios), ratios[0], ratios.last!)
                    }
                )
            )
            columns.append(("vs largest ref", { row in largest(row).map { ratio(row.fastest, $0.fastest) } ?? "-" }))
        }
        if !cpuPairs.isEmpty {
            columns.append(
                (
                    "CPU/push vs ref",
                    { row in
                        guard let (_, ratios) = cpuPaired(row) else { return "-" }
                        return String(format: "%.2fx %.2f-%.2f", median(ratios), ratios[0], ratios.last!)
                    }
                )
            )
        }
        for label in against {
            guard let reference = rows.first(where: { $0.label == label }) else { continue }
            columns.append(("vs " + label, { row in ratio(row.fastest, reference.fastest) }))
        }
        var header = [
            pad("name", 18), pad("requests", 9, right: true), pad("ok", 9, right: true),
            pad("seconds", 9, right: true), pad("req/s", 9, right: true),
        ]
        header += columns.map { pad($0.title, 18, right: true) }
        header += [
            pad("µs each", 9, right: true), pad("CPU s/100k", 10, right: true), pad("peak RSS MB", 12, right: true),
            pad("server CPU s/100k", 17, right: true),
        ]
        print(header.joined(separator: " "))
        for row in rows {
            let fastest = row.fastest
            var cells = [
                pad(row.label, 18), pad(String(format: "%.0f", fastest.requests), 9, right: true),
                pad(fastest.ok.map { String(format: "%.0f", $0) } ?? "-", 9, right: true),
                pad(String(format: "%.3f", fastest.seconds), 9, right: true),
                pad(String(format: "%.0f", fastest.perSecond), 9, right: true),
            ]
            cells += columns.map { pad($0.cell(row), 18, right: true) }
            let each = fastest.requests > 0 ? fastest.seconds * 1e6 / fastest.requests : 0
            cells.append(pad(String(format: "%.1f", each), 9, right: true))
            cells.append(pad(fastest.cpuPer100k.map { String(format: "%.1f", $0) } ?? "-", 10, right: true))
            cells.append(pad(row.peakKiB.map { String(format: "%.1f", $0 / 1024) } ?? "-", 12, right: true))
            cells.append(pad(fastest.serverCPUPer100k.map { String(format: "%.1f", $0) } ?? "-", 17, right: true))
            print(cells.joined(separator: " "))
        }
        if target != nil || pairs.contains(where: { $0.target != nil }) {
            for row in rows {
                guard let ratios = paired(row), let target = matching(row, pairs)?.pair.target ?? target else {
                    continue
                }
                let median = median(ratios)
                print(
                    "target \(row.label) vs \(reference(row)!.label): paired median \(String(format: "%.2fx", median))"
                        + " >= \(String(format: "%.2fx", target)) \(median >= target ? "met" : "MISSED")"
                        + " (\(ratios.count) pairs)"
                )
            }
        }
        if let cpuTarget {
            for row in rows {
                guard let (other, ratios) = cpuPaired(row) else { continue }
                let median = median(ratios)
                print(
                    "cpu target \(row.label) vs \(other.label): paired median CPU per push"
                        + " \(String(format: "%.2fx", median)) <= \(String(format: "%.2fx", cpuTarget))"
                        + " \(median <= cpuTarget ? "met" : "MISSED") (\(ratios.count) pairs)"
                )
            }
        }
        return 0
    }

    /// `a`'s rate over `b`'s, as `0.93x`.
    private static func ratio(_ a: Run, _ b: Run) -> String {
        b.perSecond > 0 ? String(format: "%.2fx", a.perSecond / b.perSecond) : "-"
    }

    /// `client RSS MiB: start 32.1, 10% 34.0, 50% 34.1, 100% 34.2, peak 34.2`.
    private static func rss(file: String) throws -> Int32 {
        let object = try object(file: file)
        let cells = [
            ("start", "rss_start_kib"), ("10%", "rss_10_kib"), ("50%", "rss_50_kib"), ("100%", "rss_100_kib"),
            ("peak", "peak_rss_kib"),
        ]
        .map { name, key in
            name + " " + ((object[key] as? NSNumber).map { String(format: "%.1f", $0.doubleValue / 1024) } ?? "-")
        }
        print("client RSS MiB: " + cells.joined(separator: ", "))
        return 0
    }

    private static func object(file: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Arguments.Problem(description: "\(file) holds no JSON object")
        }
        return object
    }

    private static func run(file: String) throws -> Run {
        let object = try object(file: file)
        func number(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        guard let requests = number("requests") ?? number("devices"), let seconds = number("seconds") else {
            throw Arguments.Problem(description: "\(file) lacks requests/devices or seconds")
        }
        return Run(
            requests: requests,
            ok: number("ok") ?? number("sent"),
            seconds: seconds,
            peakKiB: number("peak_rss_kib"),
            cpuPer100k: number("cpu_seconds_per_100k"),
            serverCPUPer100k: number("server_cpu_seconds_per_100k")
        )
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }
}
