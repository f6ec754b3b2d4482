import Foundation

extension UUID {
    /// The canonical text form, 8-4-4-4-12 hex digits (RFC 9562 section 4), in lowercase: how APNs' apns-id
    /// and the relay's ids are written. Formatted from the 16 bytes; Foundation's `uuidString` goes through
    /// `snprintf` and is upper case, and that was about 5 % of the send path's CPU.
    public var lowercasedString: String { lowercasedString(after: "") }

    /// `prefix` followed by ``lowercasedString``, written into one new string: an `apns-id` header line per
    /// push without a second allocation.
    public func lowercasedString(after prefix: StaticString) -> String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: prefix.utf8CodeUnitCount + 36) { buffer in
                let digits: StaticString = "0123456789abcdef"
                var index = 0
                for byte in UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount) {
                    buffer[index] = byte
                    index += 1
                }
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

    /// Whether `text` is a UUID in its canonical text form (RFC 9562 section 4: 8-4-4-4-12 hex digits, either
    /// case), as APNs requires of apns-id and as the relay's ids are written. Checked byte by byte:
    /// Foundation's `UUID(uuidString:)` parses with sscanf on Linux, which lets spaces and signs through
    /// inside the hex fields and stops at a NUL (so `<uuid>%00garbage` in a path read as the UUID), and took
    /// about 4 % of the mock's time per request.
    public static func isCanonical(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            let isHyphenPlace = index == 8 || index == 13 || index == 18 || index == 23
            guard isHyphenPlace ? byte == UInt8(ascii: "-") : byte.isASCIIHexDigit else { return false }
        }
        return true
    }

    /// The UUID `text` spells in its canonical form (``isCanonical(_:)``), either case; nil for anything else.
    public init?(canonical text: String) {
        guard Self.isCanonical(text), let uuid = UUID(uuidString: text) else { return nil }
        self = uuid
    }
}
