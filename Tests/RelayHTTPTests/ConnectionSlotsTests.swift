import RelayCore
import Testing

@testable import RelayHTTP

/// The caps per address and per range, counted on the peer address, with IPv6 ranges as loopback cannot
/// show them (it has one IPv6 address).
@Suite struct ConnectionSlotsTests {
    static func address(_ text: String) throws -> IPAddress { try #require(IPAddress(text)) }

    @Test func addressesOfOneIPv6Slash64ShareItsCap() throws {
        var slots = ConnectionSlots(perAddress: 2, perPrefix: 3)
        let inside = try ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff:ffff:ffff:ffff"].map(Self.address)
        for address in inside {
            guard case .admitted = slots.admit(address) else {
                Issue.record("\(address) refused")
                return
            }
        }
        #expect(slots.admit(try Self.address("2001:db8:1:2:abcd::9")) == .overPrefixCap)
        // The next /64 has a cap of its own.
        guard case .admitted(let next) = slots.admit(try Self.address("2001:db8:1:3::1")) else {
            Issue.record("the next /64 was refused")
            return
        }
        #expect(next.prefix.description == "2001:db8:1:3::/64")
        #expect(slots.byPrefix.count == 2)
    }

    @Test func thePerAddressCapComesBeforeTheRangeCap() throws {
        var slots = ConnectionSlots(perAddress: 2, perPrefix: 10)
        let one = try Self.address("198.51.100.7")
        _ = slots.admit(one)
        _ = slots.admit(one)
        #expect(slots.admit(one) == .overAddressCap)
        guard case .admitted = slots.admit(try Self.address("198.51.100.8")) else {
            Issue.record("a neighbour was refused")
            return
        }
        #expect(slots.byPrefix[one.enclosingPrefix()] == 3)
    }

    @Test func prefixLengthsAreTheConfiguredOnes() throws {
        var slots = ConnectionSlots(perAddress: nil, perPrefix: 1, ipv4PrefixLength: 16, ipv6PrefixLength: 48)
        guard case .admitted = slots.admit(try Self.address("10.1.2.3")) else { return }
        #expect(slots.admit(try Self.address("10.1.200.3")) == .overPrefixCap)
        guard case .admitted = slots.admit(try Self.address("2001:db8:abcd:1::1")) else { return }
        #expect(slots.admit(try Self.address("2001:db8:abcd:ffff::1")) == .overPrefixCap)
        guard case .admitted = slots.admit(try Self.address("2001:db8:abce::1")) else {
            Issue.record("another /48 was refused")
            return
        }
    }

    /// Entries live only while connections hold them: after every release both tables are empty, whatever
    /// addresses came.
    @Test func releasedSlotsLeaveNoEntries() throws {
        var slots = ConnectionSlots(perAddress: 4, perPrefix: 8)
        var held: [ConnectionSlots.Slot] = []
        for index in 0..<1000 {
            let address = try Self.address("2001:db8:\(String(index % 50, radix: 16))::\(String(index, radix: 16))")
            if case .admitted(let slot) = slots.admit(address) { held.append(slot) }
        }
        #expect(held.count == 50 * 8)
        #expect(slots.byPrefix.count == 50)
        for slot in held { slots.release(slot) }
        #expect(slots.byAddress.isEmpty)
        #expect(slots.byPrefix.isEmpty)
    }
}
