import Foundation
import RelayCore
import RelayStrictJSON

/// A JSON request body whose object takes only the fields its `CodingKeys` list (declared `CaseIterable`):
/// ``HTTPRequest/decode(_:decoder:)`` refuses any other top-level key with 400 `unknown_field`, so a
/// misspelt optional field (`recipient` for `recipients`) is an error instead of the field's default.
public protocol ClosedJSONBody: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable
}

extension ClosedJSONBody {
    /// The names of the fields the body takes.
    static var fieldNames: [String] { CodingKeys.allCases.map(\.stringValue) }
}

extension HTTPRequest {
    /// Decodes the body as JSON with Foundation's `JSONDecoder`, turning failures into 4xx ``HTTPError``s whose
    /// message names the field path (`rooms[2]`, `payload.alert`).
    ///
    /// A missing `Content-Type` is tolerated; otherwise it must be `application/json` or `*/*+json`
    /// (RFC 6839 §3.1), parameters such as `charset` ignored.
    ///
    /// - Throws: ``HTTPError``:
    ///   - 415 `unsupported_media_type`: a non-JSON `Content-Type`;
    ///   - 400 `empty_body`: no body;
    ///   - 400 `invalid_json`: not JSON as jansson reads it (``RelayStrictJSON/StrictJSON/checkRequestBody(_:)``):
    ///     also an object with a key twice at any depth, a lone surrogate or a number no double holds, which
    ///     parsers read differently;
    ///   - 400 `missing_field`: a required field is absent or null (`"userId is required"`);
    ///   - 400 `invalid_field`: a field has the wrong type (`"rooms must be an array"`,
    ///     `"rooms[0] must be a string"`) or a value the type rejected;
    ///   - 400 `unknown_field`: a ``ClosedJSONBody`` has a top-level key it does not take; the message lists
    ///     `shownFields` as what the request takes (default: every field of the type), for a type that serves
    ///     two operations and refuses some of its fields in one of them itself;
    ///   - any ``HTTPError`` the type's own `init(from:)` throws, unchanged.
    public func decode<T: Decodable>(
        _ type: T.Type,
        decoder: JSONDecoder = JSONDecoder(),
        shownFields: [String]? = nil
    ) throws -> T {
        if let contentType = headers["content-type"], !Self.isJSONMediaType(contentType) {
            throw HTTPError.unsupportedMediaType()
        }
        guard !body.isEmpty else {
            throw HTTPError.badRequest(code: "empty_body", message: "A JSON request body is required")
        }
        let keys: [String]?
        do { keys = try StrictJSON.checkRequestBody(body) } catch {
            throw HTTPError.badRequest(code: "invalid_json", message: "The request body is not valid JSON: \(error)")
        }
        do {
            // Unknown fields first, so a misspelt required field is named (`roomid`), not reported missing.
            if let closed = T.self as? any ClosedJSONBody.Type {
                try refuseUnknownFields(keys, of: closed, decoder, shown: shownFields ?? closed.fieldNames)
            }
            return try decoder.decode(T.self, from: body)
        } catch let error as HTTPError {
            throw error
        } catch let error as DecodingError {
            throw Self.httpError(for: error)
        } catch {
            throw HTTPError.badRequest(code: "invalid_field", message: "The request body has an invalid value")
        }
    }

    /// Throws 400 `unknown_field` naming the first of the body's top-level `keys` (as jansson read them, no
    /// key twice) that `type` does not take, and the fields `shown`. A body that is not an object (`keys`
    /// nil) is refused as `decoder` refuses it for a type that wants one.
    private func refuseUnknownFields(
        _ keys: [String]?,
        of type: any ClosedJSONBody.Type,
        _ decoder: JSONDecoder,
        shown: [String]
    ) throws {
        let names = try keys ?? decoder.decode(ObjectKeys.self, from: body).names
        let known = type.fieldNames
        guard let unknown = names.filter({ !known.contains($0) }).sorted().first else { return }
        let name = LogText.clipped(unknown, maxBytes: 64)
        throw HTTPError.badRequest(
            code: "unknown_field",
            message: "'\(name)' is not a field of this request; it takes \(shown.joined(separator: ", "))"
        )
    }

    /// The keys of a JSON object, whatever they are.
    private struct ObjectKeys: Decodable {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        var names: [String]
        init(from decoder: any Decoder) throws {
            names = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue)
        }
    }

    /// True for `application/json` and `<type>/<subtype>+json`, any case, parameters ignored.
    public static func isJSONMediaType(_ value: String) -> Bool {
        let mediaType = mediaType(of: value)
        return mediaType == "application/json" || (mediaType.contains("/") && mediaType.hasSuffix("+json"))
    }

    /// The media type of a `Content-Type` value, lower case, without its parameters (`charset`).
    public static func mediaType(of value: String) -> String {
        value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The 400 a decoding failure answers, as ``decode(_:decoder:shownFields:)`` throws it: `missing_field` or
    /// `invalid_field` with a message naming the field path (`subscription.keys is required`); for a type
    /// whose own `init(from:)` answers a nested value's failure with a code of its own.
    public static func httpError(for error: DecodingError) -> HTTPError {
        switch error {
        case .keyNotFound(let key, let context):
            return .badRequest(code: "missing_field", message: "\(fieldPath(context.codingPath + [key])) is required")
        case .valueNotFound(_, let context):
            return .badRequest(code: "missing_field", message: "\(fieldPath(context.codingPath)) is required")
        case .typeMismatch(let type, let context):
            return .badRequest(
                code: "invalid_field",
                message: "\(fieldPath(context.codingPath)) must be \(JSONValueKind.describe(type))"
            )
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return .badRequest(code: "invalid_json", message: "The request body is not valid JSON")
            }
            return .badRequest(
                code: "invalid_field",
                message: "\(fieldPath(context.codingPath)) is invalid: \(context.debugDescription)"
            )
        @unknown default:
            return .badRequest(code: "invalid_json", message: "The request body could not be decoded")
        }
    }

    /// `rooms[2].name` style path; the top level is `body`.
    static func fieldPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "body" : text
    }
}
