import Foundation
import RelayCore

/// The proxies whose `X-Forwarded-For` is believed, and how a request's client address is found through them.
///
/// When the direct peer is not a trusted proxy, `X-Forwarded-For` is ignored (anyone can send one) and the
/// client is the peer. When it is, the client is the right-most address of `X-Forwarded-For` (its values
/// joined with commas, in order) that is not a trusted proxy: each proxy appends the address it saw, so
/// everything left of the first untrusted hop may be forged (the practice of RFC 7239 §5.2 and of common
/// reverse proxies). An entry that is not an IP address stops the walk: the last trusted hop seen is the
/// client. When every entry is trusted, the left-most one is.
struct TrustedProxies: Sendable {
    let networks: [IPNetwork]

    /// - Returns: `nil` when an entry is not an address or CIDR range (``IPNetwork``).
    init?(_ entries: [String]) {
        var networks: [IPNetwork] = []
        for entry in entries {
            guard let network = IPNetwork(entry) else { return nil }
            networks.append(network)
        }
        self.networks = networks
    }

    /// No proxy trusted: every request's client is its peer.
    static let none = TrustedProxies([])!

    func trusts(_ address: IPAddress) -> Bool { networks.contains { $0.contains(address) } }

    /// The client's numeric address for a request from `peer` carrying these `X-Forwarded-For` values.
    func clientAddress(peer: String, forwardedFor values: [String]) -> String {
        guard !networks.isEmpty, let peerAddress = IPAddress(peer), trusts(peerAddress) else { return peer }
        let hops = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peerAddress
        for hop in hops.reversed() {
            guard let address = IPAddress(hop) else { break }
            client = address
            if !trusts(address) { break }
        }
        return client.description
    }
}
