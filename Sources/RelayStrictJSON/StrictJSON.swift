import CJansson
import Foundation

/// Strict JSON (RFC 8259) checked by jansson: no comments, no trailing commas, no duplicate keys, one value
/// and nothing after it. Foundation's parser accepts some of these silently; a configuration file must not.
public enum StrictJSON {
    /// Where and why a text is not strict JSON; `line` and `column` count from 1 (the column in characters).
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var reason: String
        public init(line: Int, column: Int, reason: String) {
            self.line = line
            self.column = column
            self.reason = reason
        }
        /// `line 3, column 5: duplicate object key near '"port"'`.
        public var description: String { "line \(line), column \(column): \(reason)" }

        /// This problem in jansson's fixed words only, without what it quotes of the text (`near '…'`, a
        /// token; `invalid Unicode '\uDC01'`; `byte 0xff`): for a text that may hold secrets, such as a
        /// configuration, whose problems reach logs. The line and column still say where it is.
        public var withoutExcerpt: Problem {
            var words = Substring(reason)
            for quoted in [" near '", " '\\u", " 0x"] {
                if let start = words.range(of: quoted) { words = words[..<start.lowerBound] }
            }
            return Problem(line: line, column: column, reason: String(words))
        }
    }

    /// Checks `data` with jansson's `json_loadb` and `JSON_REJECT_DUPLICATES`.
    /// - Throws: ``Problem`` with jansson's line, column and text for the first error.
    public static func check(_ data: Data) throws(Problem) {
        try read(data, flags: cjansson_reject_duplicates()) { _ in () }.get()
    }

    /// The string member `name` of the JSON object `data`, read with jansson (duplicate keys rejected, as
    /// ``check(_:)``); nil when `data` is not such an object or the member is missing or not a string.
    public static func stringMember(_ name: String, of data: Data) -> String? {
        let member = read(data, flags: cjansson_reject_duplicates()) { value -> String? in
            guard let member = json_object_get(value, name), let text = json_string_value(member) else { return nil }
            // UTF-8 without NUL: jansson refuses `\u0000` in a string unless asked to take it.
            return String(cString: text)
        }
        return (try? member.get()) ?? nil
    }

    /// Checks a request body as ``check(_:)`` does, taking what a JSON body may hold that a configuration
    /// file need not: any value at the top (the caller's decoder names a wrong type), `\u0000` in strings,
    /// and integers past 64 bits (read as reals, as Foundation reads them). So a body any other parser reads
    /// differently (a key twice, a lone surrogate, a number no double holds) is refused as a whole, before
    /// the caller's own decoder reads it.
    /// - Returns: the body's keys when it is an object (jansson refuses `\u0000` in a key, whatever the flags),
    ///   nil when it is not: what a caller checks its fields against without reading the body again.
    /// - Throws: ``Problem`` with jansson's line, column and text for the first error.
    @discardableResult
    public static func checkRequestBody(_ data: Data) throws(Problem) -> [String]? {
        let flags = cjansson_reject_duplicates() | Int(JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL)
        return try read(data, flags: flags) { value -> [String]? in
            guard value.pointee.type == JSON_OBJECT else { return nil }
            var keys: [String] = []
            var iterator = json_object_iter(value)
            while let at = iterator, let key = json_object_iter_key(at) {
                let bytes = UnsafeRawBufferPointer(start: key, count: json_object_iter_key_len(at))
                keys.append(String(decoding: bytes, as: UTF8.self))
                iterator = json_object_iter_next(value, at)
            }
            return keys
        }.get()
    }

    /// ``check(_:)``'s problem in words without excerpt (``Problem/withoutExcerpt``), nil when there is
    /// none: the syntax check a configuration (its file, a variable's JSON value) is read with, by a caller
    /// that cannot import jansson.
    public static func configurationProblem(_ data: Data) -> String? {
        problemWithoutExcerpt { () throws(Problem) in try check(data) }
    }

    /// ``checkRequestBody(_:)``'s problem in words without excerpt, nil when there is none: the syntax check
    /// of Ditto events, from a request or a Kafka record, whose problems may be logged.
    public static func requestBodyProblem(_ data: Data) -> String? {
        problemWithoutExcerpt { () throws(Problem) in try checkRequestBody(data) }
    }

    private static func problemWithoutExcerpt(_ checking: () throws(Problem) -> Void) -> String? {
        do throws(Problem) {
            try checking()
            return nil
        } catch {
            return "\(error.withoutExcerpt)"
        }
    }

    /// What `body` makes of `data` as jansson reads it with `flags` (the value released after), or jansson's
    /// first error.
    private static func read<T>(
        _ data: Data,
        flags: Int,
        _ body: (UnsafeMutablePointer<json_t>) -> T
    ) -> Result<T, Problem> {
        var error = json_error_t()
        // An empty text as one space: the same error, and a buffer with an address.
        let text = data.isEmpty ? Data(" ".utf8) : data
        let value = text.withUnsafeBytes { bytes in
            json_loadb(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count, flags, &error)
        }
        guard let value else {
            let reason = withUnsafeBytes(of: &error.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .failure(Problem(line: Int(error.line), column: Int(error.column), reason: reason))
        }
        defer { cjansson_decref(value) }
        return .success(body(value))
    }
}
