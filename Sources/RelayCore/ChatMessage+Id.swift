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
