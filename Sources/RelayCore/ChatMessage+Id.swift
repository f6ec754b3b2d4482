extension ChatMessage {
    /// The problem of an id or a text that ``StringProtocol/isBlank``, written after the field's name.
    public static let blankProblem = "must not be empty or only white space and invisible characters"

    /// What is wrong with an id (room, sender, message, user), or nil when it is acceptable: 1 to
    /// ``maxIdBytes`` bytes of UTF-8, not ``StringProtocol/isBlank``, no control characters. The text follows
    /// the field's name (`userId must not be empty`). One rule for ids from API bodies and from user
    /// credentials.
    public static func idProblem(_ id: String) -> String? {
        if id.isEmpty { return "must not be empty" }
        if id.isBlank { return blankProblem }
        if id.utf8.count > maxIdBytes { return "must be at most \(maxIdBytes) bytes" }
        if id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "must not contain control characters"
        }
        return nil
    }
}

extension StringProtocol {
    /// Whether two ids are the same id: the same bytes of UTF-8, as the store compares them. Swift's `==`
    /// (and `String`'s hashing) treat canonically equivalent text as equal (`"josé"` with a precomposed é
    /// and with `e` + U+0301), which would let one user pass for another whose id only looks the same.
    public func isSameId(_ other: some StringProtocol) -> Bool { utf8.elementsEqual(other.utf8) }
}

extension Sequence<String> {
    /// Each id once, in order, ids compared as ``StringProtocol/isSameId(_:)`` does (bytes of UTF-8, not
    /// Swift's canonical equivalence).
    public func distinctIds() -> [String] {
        var seen: Set<[UInt8]> = []
        return filter { seen.insert(Array($0.utf8)).inserted }
    }
}
