/// What a push shows for one delivery, whatever the platform: the texts already cleaned and the names cut
/// (``ChatMessage/shown``), the ids the SDK routes by, the image, the badge and how it is sent. Each service's
/// vocabulary renders its own request from it (APNsCore's `ChatPayload`, FCMCore's `FCMMessage`,
/// WebPushCore's `WebPushPayload`) and cuts ``body``, then ``title``, to its own byte limit with
/// ``TextFitting``.
public struct ShownMessage: Sendable, Equatable {
    /// A message, an image message, or the removal of a deleted message's notification.
    public var kind: NotificationKind
    /// The room's name, shown as the title; nil when unknown or blank (and for a removal).
    public var title: String?
    /// "Sender: text", or the text (an image's caption, or ``imageBody``); nil for a removal.
    public var body: String?
    /// `dittoChatRoomId`: always there, the SDK routes a tap by it.
    public var roomId: String
    /// `dittoChatMessageId`, when the message id is known.
    public var messageId: String?
    /// An image message's URL when ``ImageURL`` takes it, for the app to download and attach.
    public var imageURL: String?
    /// The id of the message whose notification a removal takes away; nil for a chat message.
    public var removedMessageId: String?
    /// The recipient's unread total, above 0; nil: no badge.
    public var badge: Int?
    /// An alert, or a wake push (``wakes``).
    public var mode: PushMode

    public init(
        kind: NotificationKind,
        title: String?,
        body: String?,
        roomId: String,
        messageId: String? = nil,
        imageURL: String? = nil,
        removedMessageId: String? = nil,
        badge: Int? = nil,
        mode: PushMode = .alert
    ) {
        self.kind = kind
        self.title = title
        self.body = body
        self.roomId = roomId
        self.messageId = messageId
        self.imageURL = imageURL
        self.removedMessageId = removedMessageId
        self.badge = badge
        self.mode = mode
    }

    /// The body the SDK shows for an image message without caption.
    public static let imageBody = "📷 Image"

    /// Whether it is sent as a wake push: the job asks for one, the message has an id to find once Ditto
    /// synced, and it is no removal (``WakePolicy``). Any other delivery is an alert.
    public var wakes: Bool { mode == .wake && messageId != nil && removedMessageId == nil }
}
