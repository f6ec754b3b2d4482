import Synchronization

/// The deprecation notices met while decoding a configuration, one per deprecated key used, in file order.
/// ``Configuration/load(file:environment:)`` hands one to its decoder through `userInfo`.
final class DeprecationNotices: Sendable {
    static let userInfoKey = CodingUserInfoKey(rawValue: "PushRelay.DeprecationNotices")!
    private let notices = Mutex<[String]>([])

    /// The collector a decoder was given, if any.
    static func from(_ decoder: any Decoder) -> DeprecationNotices? {
        decoder.userInfo[userInfoKey] as? DeprecationNotices
    }

    func append(_ notice: String) { notices.withLock { $0.append(notice) } }

    var all: [String] { notices.withLock { $0 } }
}
