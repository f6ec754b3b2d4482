/// The `aps` dictionary of a notification payload: the keys Apple reads. Custom keys go beside it, at
/// the top level (APNs ignores custom keys inside `aps`).
///
/// Source: Apple, "Generating a remote notification" (Payload key reference).
public struct APS: Codable, Sendable, Equatable {
    /// The alert's visible text.
    public struct Alert: Codable, Sendable, Equatable {
        public var title: String?
        public var subtitle: String?
        public var body: String?
        public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
        }
    }

    public var alert: Alert?
    public var badge: Int?
    public var sound: String?
    /// Groups notifications; the relay uses the room id.
    public var threadId: String?
    public var category: String?
    /// 1 wakes the app in the background (push type background, priority 5).
    public var contentAvailable: Int?
    /// 1 lets a notification service extension change the content (image messages).
    public var mutableContent: Int?
    public var targetContentId: String?
    /// passive, active, time-sensitive or critical.
    public var interruptionLevel: String?
    /// 0...1.
    public var relevanceScore: Double?

    public init(
        alert: Alert? = nil,
        badge: Int? = nil,
        sound: String? = nil,
        threadId: String? = nil,
        category: String? = nil,
        contentAvailable: Int? = nil,
        mutableContent: Int? = nil,
        targetContentId: String? = nil,
        interruptionLevel: String? = nil,
        relevanceScore: Double? = nil
    ) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadId = threadId
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.targetContentId = targetContentId
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
    }

    enum CodingKeys: String, CodingKey {
        case alert, badge, sound, category
        case threadId = "thread-id"
        case contentAvailable = "content-available"
        case mutableContent = "mutable-content"
        case targetContentId = "target-content-id"
        case interruptionLevel = "interruption-level"
        case relevanceScore = "relevance-score"
    }
}
