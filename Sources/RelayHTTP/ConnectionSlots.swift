import RelayCore

/// Open connections counted by peer address and by the address range around it (its IPv4 /24 or IPv6 /64 by
/// default, see ``IPAddress/enclosingPrefix(ipv4Length:ipv6Length:)``), and whether one more from a peer fits
/// under ``HTTPServerConfiguration/maxConnectionsPerAddress`` and
/// ``HTTPServerConfiguration/maxConnectionsPerPrefix``.
///
/// An entry lives only while its count is above zero, so the tables hold at most one entry per open
/// connection whatever addresses connect.
struct ConnectionSlots: Sendable {
    /// What one admitted connection holds, to be given back by ``release(_:)``.
    struct Slot: Sendable, Hashable {
        var address: IPAddress
        var prefix: IPNetwork
    }

    /// Whether a connection was let in, and if not, which cap it met.
    enum Admission: Sendable, Equatable {
        case admitted(Slot)
        case overAddressCap
        case overPrefixCap
    }

    /// Most connections from one address; `nil` for no cap.
    let perAddress: Int?
    /// Most connections from one range; `nil` for no cap.
    let perPrefix: Int?
    /// Leading bits that make an IPv4 address's range (24: a /24).
    let ipv4PrefixLength: Int
    /// Leading bits that make an IPv6 address's range (64: a /64).
    let ipv6PrefixLength: Int

    private(set) var byAddress: [IPAddress: Int] = [:]
    private(set) var byPrefix: [IPNetwork: Int] = [:]

    init(perAddress: Int?, perPrefix: Int?, ipv4PrefixLength: Int = 24, ipv6PrefixLength: Int = 64) {
        self.perAddress = perAddress
        self.perPrefix = perPrefix
        self.ipv4PrefixLength = ipv4PrefixLength
        self.ipv6PrefixLength = ipv6PrefixLength
    }

    /// The range `address` is counted in.
    func prefix(of address: IPAddress) -> IPNetwork {
        address.enclosingPrefix(ipv4Length: ipv4PrefixLength, ipv6Length: ipv6PrefixLength)
    }

    /// Counts one more connection from `address` when both caps leave room for it; counts nothing otherwise.
    mutating func admit(_ address: IPAddress) -> Admission {
        let slot = Slot(address: address, prefix: prefix(of: address))
        if let perAddress, byAddress[address, default: 0] >= perAddress { return .overAddressCap }
        if let perPrefix, byPrefix[slot.prefix, default: 0] >= perPrefix { return .overPrefixCap }
        byAddress[address, default: 0] += 1
        byPrefix[slot.prefix, default: 0] += 1
        return .admitted(slot)
    }

    /// Gives back what ``admit(_:)`` counted; an entry whose count reaches zero is removed.
    mutating func release(_ slot: Slot) {
        Self.decrement(&byAddress, slot.address)
        Self.decrement(&byPrefix, slot.prefix)
    }

    private static func decrement<Key: Hashable>(_ table: inout [Key: Int], _ key: Key) {
        guard let count = table[key] else { return }
        table[key] = count > 1 ? count - 1 : nil
    }
}
