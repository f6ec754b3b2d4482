import Foundation

extension UUID {
    /// The canonical text form, 8-4-4-4-12 hex digits (RFC 9562 section 4), in lowercase: how APNs' apns-id
    /// and the relay's ids are written. Formatted from the 16 bytes; Foundation's `uuidString` goes through
    /// `snprintf` and is upper case, and that was about 5 % of the send path's CPU.
    public var lowercasedString: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                let digits: StaticString = "0123456789abcdef"
                var index = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        buffer[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    buffer[index] = digits.utf8Start[Int(byte >> 4)]
                    buffer[index + 1] = digits.utf8Start[Int(byte & 0xF)]
                    index += 2
                }
                return index
            }
        }
    }
}
