/// A change event (or a request of them) that cannot be read: what is wrong and, in a request of several,
/// the 0-based index of the first bad event. Never carries the event's content.
public struct DittoEventError: Error, Sendable, Equatable, CustomStringConvertible {
    public let index: Int?
    public let reason: String

    public init(index: Int?, reason: String) {
        self.index = index
        self.reason = reason
    }

    public var description: String { index.map { "event \($0): \(reason)" } ?? reason }
}
