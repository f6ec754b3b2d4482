/// A DittoChat room document (`rooms`, or a DM room of `dm_rooms`), read leniently.
public struct DittoChatRoom: Sendable, Equatable {
    public let id: String
    /// Cut to what a push shows of a name (``ChatMessage/maxShownNameCharacters`` and
    /// ``ChatMessage/maxShownNameBytes``), as a webhook's room name is: nothing longer is ever shown.
    public let name: String?
    /// The collection that holds the room's messages (`messages` when unset).
    public let messagesId: String?
    /// A generated room (a comment thread) is hidden in the SDK's UI.
    public let isGenerated: Bool
    /// A DM room's two users; empty for a public room.
    public let participants: [String]
    /// Whether the document sets `messagesId` to what names no collection the relay takes: not a string, or
    /// a string the id rule refuses (``ChatMessage/idProblem(_:)``). A blank one reads as unset (the SDK's
    /// default collection).
    public let namesNoCollection: Bool

    public init(_ document: DittoDocument) {
        id = document.id
        name = document.string("name").map(ChatMessage.shownName)
        messagesId = document.string("messagesId")
        isGenerated = document.flag("isGenerated")
        participants = document.strings("participants") ?? []
        namesNoCollection =
            document.isSet("messagesId")
            && (messagesId.map { !$0.isBlank && ChatMessage.idProblem($0) != nil } ?? true)
    }
}
