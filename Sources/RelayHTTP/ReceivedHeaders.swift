import CMicroHTTPD
import Foundation

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
///   bare LF line with one, so the byte after a value's terminator is the next line's first (a bare LF in
///   the request line goes through);
/// - a line with no field name (`: x`, `:`) after the first field: libmicrohttpd writes a NUL over its colon
///   and then takes the line for the empty one that ends the header section, so what follows it (a proxy's
///   further fields, its empty line) becomes the body (request smuggling). The empty line after the last
///   field must be CRLF: two NULs; `: x` leaves a byte that is not NUL there. A bare `:` line leaves NULs
///   alone, one more than a CRLF empty line: libmicrohttpd's length of the request's head
///   (`MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`, counted from the request line's first byte) then ends a
///   byte past ``bodyStart``, which a request without a body shows too (what follows it would run as the
///   next request). For a body, ``bodyStart`` is also where its first bytes must arrive
///   (``bodyStartsWhereExpected(_:at:)``). A `:` line ended by a bare LF leaves what a CRLF empty line
///   leaves, in its length too, as does a CRLF `:` line after a field line ended by a bare LF (one byte
///   saved, one added); the fields it hid start the body, which ``startsAsAHeaderField(_:)`` finds when the
///   body is in, and without a body nothing tells it from a pipelined request.
struct ReceivedHeaders {
    var headers = HTTPHeaders()
    /// What is wrong, for the 400's message; `nil` when nothing was found.
    var problem: String?
    /// The address right after the last field's line and the empty line that ends the section (CRLF each)
    /// in libmicrohttpd's read buffer: where the body (or its first chunk-size line) starts. Read only up to
    /// the body's first bytes; nil without fields.
    private(set) var bodyStart: UInt?

    /// Reads every header field of `connection`, whose request line starts at `requestStart` in the read
    /// buffer.
    static func read(from connection: OpaquePointer, requestStart: UnsafePointer<CChar>) -> ReceivedHeaders {
        var received = ReceivedHeaders()
        withUnsafeMutablePointer(to: &received) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, ReceivedHeaders.collect, pointer)
        }
        if let end = received.lastValueEnd {
            // The last field's line end (its terminator and the LF's NUL), then the empty line's two NULs.
            let headEnd = requestStart + cmhd_connection_header_size(connection)
            if end[2] != 0 || end[3] != 0 || headEnd != end + 4 {
                received.note("A header line has no field name, or the header section does not end with CRLF")
            }
            received.bodyStart = UInt(bitPattern: end + 4)
        }
        return received
    }

    /// The end of the last field's value in the read buffer (its terminating NUL), the field lying furthest.
    private var lastValueEnd: UnsafePointer<CChar>?

    /// Whether the body's first bytes, handed over at `upload`, start where the header section ended: at
    /// ``bodyStart``, or after the first chunk's size line (printable bytes, CR and LF: no NUL, which only
    /// libmicrohttpd's header lines leave). True without fields to compare with.
    static func bodyStartsWhereExpected(_ bodyStart: UInt?, at upload: UnsafePointer<CChar>) -> Bool {
        guard let bodyStart else { return true }
        let address = UInt(bitPattern: upload)
        guard address >= bodyStart, address - bodyStart <= maxChunkLine else { return false }
        let between = Int(address - bodyStart)
        return !UnsafeRawBufferPointer(start: upload - between, count: between).contains(0)
    }

    /// The longest first chunk-size line taken between the header section and the body's first bytes: both
    /// lie in the connection's memory pool, which ``HTTPServerConfiguration/maxHeaderBytes`` (at most 1 MiB)
    /// and the body's first bytes bound.
    static let maxChunkLine: UInt = 2 << 20

    /// Whether `body` starts as a header field does (a token and a colon, RFC 9110 §5.1), after any line
    /// breaks: what a line libmicrohttpd took for the end of the header section leaves (a `:` line ended by a
    /// bare LF leaves no other trace), the fields a proxy framed after it read as the body. No JSON value,
    /// nor a chunk-size line, starts so.
    static func startsAsAHeaderField(_ body: Data) -> Bool {
        let rest = body.drop { $0 == 0x0D || $0 == 0x0A }
        guard let colon = rest.prefix(Self.maxFieldName + 1).firstIndex(of: UInt8(ascii: ":")) else { return false }
        return isToken(rest[rest.startIndex..<colon])
    }

    /// The longest field name ``startsAsAHeaderField(_:)`` looks for.
    static let maxFieldName = 256

    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let received = cls.assumingMemoryBound(to: ReceivedHeaders.self)
        let name = UnsafeRawBufferPointer(start: key, count: keySize)
        let bytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
        received.pointee.add(name: name, value: bytes, layout: value.map { Self.layout(key, keySize, $0, valueSize) })
        if let value {
            let end = value + valueSize
            if received.pointee.lastValueEnd.map({ end > $0 }) ?? true { received.pointee.lastValueEnd = end }
        }
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

    mutating func note(_ message: String) {
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
