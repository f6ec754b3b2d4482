import Foundation
import RelayCLI

/// `relay-bench table`: prints the results of one bench run side by side. Each argument is
/// `LABEL=FILE[,FILE...]`, each FILE holding one JSON object as printed by `relay-bench apns|fanout`,
/// `curl-multi` or the scripts' h2load line: `requests` (or `devices`), `seconds`, and optionally `ok` (or
/// `sent`) and `peak_rss_kib`. Several files are repeated runs of one thing: the row shows the fastest run
/// (the least disturbed by the rest of the machine) and the highest peak RSS of them all.
/// `--against A,B` adds a "vs A" column per label: this row's rate over that row's. `--rss FILE` prints the
/// RSS samples of a `relay-bench apns` result instead.
enum TableCommand {
    static let usage = "relay-bench table [--against LABEL,LABEL] LABEL=FILE[,FILE...]... | table --rss FILE"

    /// One measured row.
    private struct Row {
        var label: String
        var requests: Double
        var ok: Double?
        var seconds: Double
        var peakKiB: Double?
        var perSecond: Double { seconds > 0 ? requests / seconds : 0 }
    }

    static func run(_ words: [String]) throws -> Int32 {
        var against: [String] = []
        var rows: [Row] = []
        if words.count == 2, words[0] == "--rss" { return try rss(file: words[1]) }
        var iterator = words.makeIterator()
        while let word = iterator.next() {
            if word == "--against" {
                guard let list = iterator.next() else {
                    throw Arguments.Problem(description: "--against needs a value")
                }
                against = list.split(separator: ",").map(String.init)
                continue
            }
            guard let equals = word.firstIndex(of: "=") else {
                throw Arguments.Problem(description: "expected LABEL=FILE, got '\(word)'")
            }
            let label = String(word[..<equals])
            let runs = try word[word.index(after: equals)...].split(separator: ",").map {
                try row(label: label, file: String($0))
            }
            guard var fastest = runs.max(by: { $0.perSecond < $1.perSecond }) else {
                throw Arguments.Problem(description: "no file for '\(label)'")
            }
            fastest.peakKiB = runs.compactMap(\.peakKiB).max()
            rows.append(fastest)
        }
        let references = against.compactMap { label in rows.first { $0.label == label } }
        var header = [
            pad("name", 14), pad("requests", 9, right: true), pad("ok", 9, right: true),
            pad("seconds", 9, right: true), pad("req/s", 9, right: true),
        ]
        header += references.map { pad("vs " + $0.label, 11, right: true) }
        header += [pad("µs each", 9, right: true), pad("peak RSS MB", 12, right: true)]
        print(header.joined(separator: " "))
        for row in rows {
            var cells = [
                pad(row.label, 14), pad(String(format: "%.0f", row.requests), 9, right: true),
                pad(row.ok.map { String(format: "%.0f", $0) } ?? "-", 9, right: true),
                pad(String(format: "%.3f", row.seconds), 9, right: true),
                pad(String(format: "%.0f", row.perSecond), 9, right: true),
            ]
            cells += references.map { reference in
                pad(
                    reference.perSecond > 0 ? String(format: "%.2fx", row.perSecond / reference.perSecond) : "-",
                    11,
                    right: true
                )
            }
            cells.append(
                pad(String(format: "%.1f", row.requests > 0 ? row.seconds * 1e6 / row.requests : 0), 9, right: true)
            )
            cells.append(pad(row.peakKiB.map { String(format: "%.1f", $0 / 1024) } ?? "-", 12, right: true))
            print(cells.joined(separator: " "))
        }
        return 0
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

    private static func row(label: String, file: String) throws -> Row {
        let object = try object(file: file)
        func number(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        guard let requests = number("requests") ?? number("devices"), let seconds = number("seconds") else {
            throw Arguments.Problem(description: "\(file) lacks requests/devices or seconds")
        }
        return Row(
            label: label,
            requests: requests,
            ok: number("ok") ?? number("sent"),
            seconds: seconds,
            peakKiB: number("peak_rss_kib")
        )
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }
}
