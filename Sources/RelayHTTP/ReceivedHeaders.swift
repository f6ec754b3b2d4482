import CMicroHTTPD

/// A request's header fields as libmicrohttpd parsed them, read with their lengths, and the first way in
/// which their bytes break RFC 9112 §5 that libmicrohttpd 0.9.75 lets through:
/// - a NUL, CR, LF or other control character but HTAB in a field value (RFC 9110 §5.5): a bare CR is
///   not a line end to libmicrohttpd, a NUL ends the value early for any C reader, and a proxy in front may
///   read either otherwise;
/// - a field name that is not a token (RFC 9110 §5.1);
/// - obs-fold, a line that starts with SP or HTAB (RFC 9112 §5.2): libmicrohttpd appends it to the previous
///   field's NAME (`Content-Length: 3`, ` x` becomes `Content-Lengthx: 3`), copied out of its read buffer;
///   a name that no longer sits right before its `:` and value in that buffer shows the fold;
/// - a bare LF ending a header line (RFC 9112 §2.2): libmicrohttpd ends a CRLF line with two NULs and a
///   bare LF line with one, so the byte after a value's terminator is the next line's first. After the last
///   field comes the empty line, also NULs: a bare LF there goes through, as does one in the request line.
struct ReceivedHeaders {
    var headers = HTTPHeaders()
    /// What is wrong, for the 400's message; `nil` when nothing was found.
    var problem: String?

    /// Reads every header field of `connection`.
    static func read(from connection: OpaquePointer) -> ReceivedHeaders {
        var received = ReceivedHeaders()
        withUnsafeMutablePointer(to: &received) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, ReceivedHeaders.collect, pointer)
        }
        return received
    }

    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let received = cls.assumingMemoryBound(to: ReceivedHeaders.self)
        let name = UnsafeRawBufferPointer(start: key, count: keySize)
        let bytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
        received.pointee.add(name: name, value: bytes, layout: value.map { Self.layout(key, keySize, $0, valueSize) })
        return .YES
    }

    /// How a field lies in libmicrohttpd's read buffer.
    struct Layout {
        /// The name sits before its value, separated by the `:` (a NUL now) and optional white space.
        var inPlace: Bool
        /// The byte after the value's terminating NUL is not NUL: the line ended with a bare LF.
        var bareLineFeed: Bool
    }

    /// Reads only bytes of libmicrohttpd's read buffer: up to `maxGap` after the name's NUL, and the line end
    /// after the value, which lies in the buffer before the headers' empty line.
    private static func layout(
        _ key: UnsafePointer<CChar>,
        _ keySize: Int,
        _ value: UnsafePointer<CChar>,
        _ valueSize: Int
    ) -> Layout {
        let maxGap = 4096
        let gap = value - key
        var inPlace = gap > keySize && gap <= keySize + 1 + maxGap && key[keySize] == 0
        if inPlace {
            for offset in (keySize + 1)..<gap where key[offset] != 0x20 && key[offset] != 0x09 { inPlace = false }
        }
        return Layout(inPlace: inPlace, bareLineFeed: value[valueSize] == 0 && value[valueSize + 1] != 0)
    }

    mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, layout: Layout?) {
        // A NUL inside the value looks the same: libmicrohttpd's value ends there, and more bytes follow.
        if layout?.bareLineFeed == true { note("A header line ends with a bare LF or holds a NUL (RFC 9112 §2.2)") }
        if !Self.isToken(name) { note("A header field name is not a token (RFC 9110 §5.1)") }
        if layout?.inPlace == false { note("A header field is folded over lines (obs-fold, RFC 9112 §5.2)") }
        if value.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            note("A header field value holds a control character (RFC 9110 §5.5)")
        }
        headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    private mutating func note(_ message: String) {
        if problem == nil { problem = message }
    }

    /// Whether `name` is an RFC 9110 §5.6.2 token: one or more of `!#$%&'*+-.^_`|~`, digits and letters.
    static func isToken(_ name: some Collection<UInt8>) -> Bool {
        !name.isEmpty
            && name.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
                }
            }
    }
}
