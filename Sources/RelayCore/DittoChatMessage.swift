import Foundation

/// A DittoChat message document (`messages`, `dm_messages`, or any room's `messagesId` collection), read
/// leniently: a field of the wrong type reads as absent.
public struct DittoChatMessage: Sendable, Equatable {
    public let id: String
    public let roomId: String?
    /// The sender's Ditto user id.
    public let userId: String?
    public let text: String?
    public let createdOn: Date?
    public let isArchived: Bool
    /// The id of the message this document replaces (a JS edit or delete), when set.
    public let archivedMessage: String?
    public let isEdited: Bool
    public let isDeleted: Bool
    /// Whether any image token is set (`largeImageToken` or `thumbnailImageToken`, any non-null value).
    public let hasImage: Bool
    /// The user ids the message mentions (`mentions[].userId`).
    public let mentionedUserIds: [String]

    public init(_ document: DittoDocument) {
        id = document.id
        roomId = document.string("roomId")
        userId = document.string("userId")
        text = document.string("text")
        createdOn = document.date("createdOn")
        isArchived = document.flag("isArchived")
        archivedMessage = document.string("archivedMessage")
        isEdited = document.flag("isEdited")
        isDeleted = document.flag("isDeleted")
        hasImage = document.isSet("largeImageToken") || document.isSet("thumbnailImageToken")
        if case .array(let mentions)? = document.fields["mentions"] {
            mentionedUserIds = mentions.compactMap {
                if case .object(let mention) = $0 { mention["userId"]?.string } else { nil }
            }
        } else {
            mentionedUserIds = []
        }
    }
}
