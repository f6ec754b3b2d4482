import Foundation

extension String {
    /// RFC 3986's unreserved characters; every other byte is percent-encoded in a path segment.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// The string as one percent-encoded path segment (`a/b c` -> `a%2Fb%20c`).
    var pathSegmentEncoded: String { addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "" }
}
