import Foundation

extension URLComponents {
    /// Whether `text`, the URL these components were read from, names a port they hold as none: digits too
    /// many for an Int, which libcurl still reads as a port (and refuses). An empty port (`host:/`) is none.
    public func hasUnreadablePort(in text: String) -> Bool {
        guard port == nil, let scheme else { return false }
        let authority = text.dropFirst(scheme.count + 3).prefix { !"/?#".contains($0) }
        // After an IPv6 literal's `]`, whose colons are no port.
        let afterHost = authority.lastIndex(of: "]").map { authority[authority.index(after: $0)...] } ?? authority
        guard let colon = afterHost.firstIndex(of: ":") else { return false }
        return afterHost[afterHost.index(after: colon)...].contains(where: \.isNumber)
    }
}
