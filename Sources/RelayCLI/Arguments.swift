/// The command line after a subcommand: `--name value` (or `--name=value`) options, `--flag` switches and
/// positional words. Shared by `push-relay` and `relay-bench`. Not a standard format: a few lines suffice.
public struct Arguments: Sendable {
    private var options: [String: String] = [:]
    private var repeated: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// Words that are not options, in order.
    public private(set) var positional: [String] = []

    /// A command-line mistake: printed with the command's usage, exit status 2.
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Splits `words`; `switches` names the options that take no value. With `options` (those that take
    /// one), any other option is refused, so a typo is never silently ignored; with `positional`, more words
    /// than that are refused. `repeatable` names options that take a value and may be given more than once
    /// (`--data a=1 --data b=2`), read with ``values(_:)``.
    /// - Throws: ``Problem`` for an unknown option, an option given twice (unless repeatable) or without its
    ///   value (the next word an option itself: `--app --txn-id 7`; `--name=--value` gives such a value), a
    ///   switch given one (`--h2c=yes`), or an unexpected word.
    public init(
        _ words: some Sequence<String>,
        switches: Set<String> = [],
        options known: Set<String>? = nil,
        repeatable: Set<String> = [],
        positional maximum: Int? = nil
    ) throws(Problem) {
        var iterator = words.makeIterator()
        while let word = iterator.next() {
            guard word.hasPrefix("--"), word.count > 2 else {
                if let maximum, positional.count == maximum {
                    throw Problem(description: "unexpected argument '\(word)'")
                }
                positional.append(word)
                continue
            }
            var name = String(word.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if let known, !known.contains(name), !switches.contains(name), !repeatable.contains(name) {
                throw Problem(description: "unknown option --\(name)")
            }
            guard repeatable.contains(name) || (options[name] == nil && !flags.contains(name)) else {
                throw Problem(description: "--\(name) is given twice")
            }
            if switches.contains(name) {
                guard value == nil else { throw Problem(description: "--\(name) takes no value") }
                flags.insert(name)
                continue
            }
            guard let value = value ?? iterator.next().flatMap({ $0.hasPrefix("--") ? nil : $0 }) else {
                throw Problem(description: "--\(name) needs a value")
            }
            if repeatable.contains(name) {
                repeated[name, default: []].append(value)
            } else {
                options[name] = value
            }
        }
    }

    /// Requires the one word `name` (`keys new`, `config check`).
    /// - Throws: ``Problem`` naming the word given instead, or saying it is missing, with `usage`.
    public func requireSubcommand(_ name: String, usage: String) throws(Problem) {
        _ = try subcommand(of: [name], usage: usage)
    }

    /// The one word given, one of `names` (`storage copy`, `storage requery-done`).
    /// - Throws: ``Problem`` naming the word given instead, or saying it is missing (naming them all), with
    ///   `usage`.
    public func subcommand(of names: [String], usage: String) throws(Problem) -> String {
        if positional.count == 1, let name = positional.first, names.contains(name) { return name }
        let missing =
            names.count == 1
            ? "missing subcommand '\(names[0])'"
            : "missing subcommand: \(names.dropLast().joined(separator: ", ")) or \(names[names.count - 1])"
        let given = positional.first.map { "unknown subcommand '\($0)'" } ?? missing
        throw Problem(description: "\(given)\n\(usage)")
    }

    /// The option's value, if given.
    public func value(_ name: String) -> String? { options[name] }

    /// Every value of a repeatable option, in the order given; empty when absent.
    public func values(_ name: String) -> [String] { repeated[name] ?? [] }

    /// The option's value, or `fallback` when absent.
    public func value(_ name: String, default fallback: String) -> String { options[name] ?? fallback }

    /// The option's value.
    /// - Throws: ``Problem`` when absent.
    public func required(_ name: String) throws(Problem) -> String {
        guard let value = options[name] else { throw Problem(description: "--\(name) is required") }
        return value
    }

    /// True when the switch was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The option as an integer, or `fallback` when absent.
    /// - Throws: ``Problem`` when present but not an integer.
    public func integer(_ name: String, default fallback: Int? = nil) throws(Problem) -> Int? {
        guard let text = options[name] else { return fallback }
        guard let number = Int(text) else { throw Problem(description: "--\(name) must be an integer, got '\(text)'") }
        return number
    }

    /// The option as a positive integer, or `fallback` when absent.
    /// - Throws: ``Problem`` when present but not a positive integer.
    public func positiveInteger(_ name: String, default fallback: Int) throws(Problem) -> Int {
        let number = try integer(name, default: fallback) ?? fallback
        guard number > 0 else { throw Problem(description: "--\(name) must be a positive integer, got \(number)") }
        return number
    }

}
