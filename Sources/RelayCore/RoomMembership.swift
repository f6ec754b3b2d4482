/// Who may add a room's members: `open` rooms take joins from their users themselves (Ditto's public rooms);
/// in `closed` ones only the app's backend (its API key) adds members, and closing a room removes the
/// members who joined themselves. Members leave and set their own levels in either.
public enum RoomMembership: String, Sendable, Codable, ListedCases {
    case open, closed
}
