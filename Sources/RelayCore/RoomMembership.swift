/// Who may change a room's members: `open` rooms take joins and leaves from their users themselves (Ditto's
/// public rooms); in `closed` ones only the app's backend (its API key) manages membership.
public enum RoomMembership: String, Sendable, Codable, ListedCases {
    case open, closed
}
