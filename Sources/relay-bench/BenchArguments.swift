/// `--name value` options after a relay-bench subcommand. Not a standard format: a few lines suffice.
struct BenchArguments {
    private var options: [String: String] = [:]

    /// A command-line mistake: printed with the usage, exit status 2.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Splits `words` into `--name value` pairs (`--name=value` too).
    /// - Throws: ``Problem`` for a word that is not an option or an option without a value.
    init(_ words: [String]) throws(Problem) {
        var iterator = words.makeIterator()
        while let word = iterator.next() {
            guard word.hasPrefix("--"), word.count > 2 else { throw Problem(description: "unexpected '\(word)'") }
            let name = String(word.dropFirst(2))
            if let equals = name.firstIndex(of: "=") {
                options[String(name[..<equals])] = String(name[name.index(after: equals)...])
                continue
            }
            guard let value = iterator.next() else { throw Problem(description: "--\(name) needs a value") }
            options[name] = value
        }
    }

    /// The option's value, or `fallback` when absent.
    func string(_ name: String, default fallback: String) -> String { options[name] ?? fallback }

    /// The option's value.
    /// - Throws: ``Problem`` when absent.
    func required(_ name: String) throws(Problem) -> String {
        guard let value = options[name] else { throw Problem(description: "--\(name) is required") }
        return value
    }

    /// The option as a positive integer, or `fallback` when absent.
    /// - Throws: ``Problem`` when present but not a positive integer.
    func integer(_ name: String, default fallback: Int) throws(Problem) -> Int {
        guard let text = options[name] else { return fallback }
        guard let value = Int(text), value > 0 else {
            throw Problem(description: "--\(name) must be a positive integer, got '\(text)'")
        }
        return value
    }
}
