import Foundation
import RelayCore

/// Makes random (version 4, RFC 9562 §5.4) UUIDs as lowercase text without a system call per UUID.
///
/// Foundation's `UUID()` reads the kernel's random source each time, which dominated the mock's profile;
/// this seeds SplitMix64 once from the system generator. Good enough for
/// ids in a mock (`apns-id`, FCM message names), not for secrets. Not `Sendable`: one per event-loop thread.
package struct FastUUID {
    private var state: UInt64

    package init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A new UUID such as `3f2b8c1e-5a4d-4e6f-9a1b-2c3d4e5f6a7b`.
    package mutating func string() -> String {
        let high = (next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        let low = (next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // variant 10
        return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) {
            UUID(uuid: $0.loadUnaligned(as: uuid_t.self)).lowercasedString
        }
    }
}
