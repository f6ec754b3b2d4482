/// The command line after the subcommand: `--name value` options, `--flag` switches and positional words.
/// Not a standard format: a few lines suffice and every command shares them.
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    /// A command-line mistake: printed with the command's usage, exit status 2.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Splits `words`; `switches` names the options that take no value.
    init(_ words: some Sequence<String>, switches: Set<String> = []) throws(Problem) {
        var iterator = words.makeIterator()
        while let word = iterator.next() {
            guard word.hasPrefix("--"), word.count > 2 else {
                positional.append(word)
                continue
            }
            let name = String(word.dropFirst(2))
            if let equals = name.firstIndex(of: "=") {
                options[String(name[..<equals])] = String(name[name.index(after: equals)...])
                continue
            }
            if switches.contains(name) {
                flags.insert(name)
                continue
            }
            guard let value = iterator.next() else { throw Problem(description: "--\(name) needs a value") }
            options[name] = value
        }
    }

    func value(_ name: String) -> String? { options[name] }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The option as an integer, or `fallback` when absent.
    /// - Throws: ``Problem`` when present but not an integer.
    func integer(_ name: String, default fallback: Int? = nil) throws(Problem) -> Int? {
        guard let text = options[name] else { return fallback }
        guard let number = Int(text) else { throw Problem(description: "--\(name) must be an integer, got '\(text)'") }
        return number
    }

    /// Refuses options the command does not know, so a typo is never silently ignored.
    func check(allowed: Set<String>) throws(Problem) {
        let unknown = Set(options.keys).union(flags).subtracting(allowed)
        if let first = unknown.sorted().first { throw Problem(description: "unknown option --\(first)") }
    }
}
