extension ChatMessage {
    /// The most BYTES of UTF-8 of a text or caption kept: no push shows more (APNs' payload and FCM's message
    /// are 4,096 bytes each, the text's JSON encoding and the rest of the push included), so the rest of a
    /// longer text would only take disk.
    public static let maxKeptTextBytes = 4096

    /// The message as the relay keeps it: its text or caption cut to ``maxKeptTextBytes``, its room and
    /// sender names to what a push shows of them (``maxShownNameCharacters``, ``maxShownNameBytes``), each
    /// ended with "…" when cut (``TextFitting/prefix(_:maxCharacters:maxBytes:)``). Rendering it shows what
    /// rendering the whole message shows, up to where a push's own cut falls.
    public var kept: ChatMessage {
        var copy = self
        copy.roomName = roomName.map(Self.shownName)
        copy.senderName = senderName.map(Self.shownName)
        switch content {
        case .text(let text): copy.content = .text(Self.keptText(text))
        case .image(let caption, let url): copy.content = .image(caption: caption.map(Self.keptText), imageURL: url)
        case .removal: break
        }
        return copy
    }

    /// `text` within ``maxKeptTextBytes`` (a Character takes at least one byte, so bytes bound it alone).
    private static func keptText(_ text: String) -> String {
        TextFitting.prefix(text, maxCharacters: maxKeptTextBytes, maxBytes: maxKeptTextBytes)
    }
}
