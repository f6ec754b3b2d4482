import Foundation
import RelayCore
import RelayHTTP

/// The checks every id and token in a request goes through, with the 400 errors they give.
enum Validation {
    /// An id (room, user, message) as ``RelayCore/ChatMessage/idProblem(_:)`` takes it: 1...256 bytes of
    /// UTF-8, not ``RelayCore/StringProtocol/isBlank``, no control characters.
    /// - Throws: ``HTTPError`` 400 `code` (`invalid_field`, or `invalid_query` for a query parameter) naming
    ///   `field`.
    static func id(_ value: String, field: String, code: String = "invalid_field") throws(HTTPError) -> String {
        if let problem = ChatMessage.idProblem(value) {
            throw .badRequest(code: code, message: "\(field) \(problem)")
        }
        return value
    }

    /// Text that shows something: not ``RelayCore/StringProtocol/isBlank``, and without NUL.
    /// - Throws: ``HTTPError`` 400 `invalid_field` naming `field`.
    static func visible(_ value: String, field: String) throws(HTTPError) {
        guard !value.isBlank else {
            throw .badRequest(code: "invalid_field", message: "\(field) \(ChatMessage.blankProblem)")
        }
        try noNUL(value, field: field)
    }

    /// NUL shows nothing, and a store may not keep it (``RelayCore/StringProtocol/holdsNUL``).
    /// - Throws: ``HTTPError`` 400 `invalid_field` naming `field`.
    private static func noNUL(_ value: String, field: String) throws(HTTPError) {
        if value.holdsNUL {
            throw .badRequest(code: "invalid_field", message: "\(field) must not contain NUL (U+0000)")
        }
    }

    static func optionalId(_ value: String?, field: String) throws(HTTPError) -> String? {
        guard let value else { return nil }
        return try id(value, field: field)
    }

    /// Free text shown to people (names, captions): at most `maxBytes` bytes, without NUL.
    static func text(_ value: String?, field: String, maxBytes: Int = 1024) throws(HTTPError) -> String? {
        guard let value else { return nil }
        guard value.utf8.count <= maxBytes else {
            throw .badRequest(code: "invalid_field", message: "\(field) must be at most \(maxBytes) bytes")
        }
        try noNUL(value, field: field)
        return value
    }

    /// An image's URL for the app's notification service extension, as ``RelayCore/ImageURL`` takes it.
    /// - Throws: ``HTTPError`` 400 `invalid_field` naming `field`.
    static func imageURL(_ value: String?, field: String) throws(HTTPError) -> String? {
        guard let url = try text(value, field: field, maxBytes: ImageURL.maxBytes) else { return nil }
        if let problem = ImageURL.problem(url) {
            throw .badRequest(code: "invalid_field", message: "\(field) \(problem)")
        }
        return url
    }

    /// The query parameter `name` as a decimal integer within `range`; nil when absent.
    /// - Throws: ``HTTPError`` 400 `invalid_query` naming the parameter and its range.
    static func queryInteger(
        _ request: HTTPRequest,
        _ name: String,
        in range: ClosedRange<Int>
    ) throws(HTTPError)
        -> Int?
    {
        guard let text = request.query[name] else { return nil }
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text), range.contains(value)
        else {
            throw .badRequest(
                code: "invalid_query",
                message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)"
            )
        }
        return value
    }

    /// A device's push token for `platform`: an APNs device token in any recoverable form, an FCM
    /// registration token exactly.
    /// - Throws: ``HTTPError`` 400 `invalid_device_token` saying what is wrong (never echoing the token);
    ///   an iOS token shaped as FCM registration tokens are (`instance:APA91b…`, a colon in it) says which
    ///   platform that needs, as `ios` is the default.
    static func token(_ value: String, platform: Platform, field: String = "token") throws(HTTPError) -> PushToken {
        do { return try PushToken(parsing: value, platform: platform) } catch {
            let fcm =
                platform == .ios && value.contains(":") && (try? PushToken(parsing: value, platform: .android)) != nil
            let hint = fcm ? " (an FCM registration token needs platform 'android')" : ""
            throw .badRequest(code: "invalid_device_token", message: "\(field): \(error.description)\(hint)")
        }
    }

    /// `ios`, `android` or `web`; `ios` when absent.
    /// - Parameter code: the error's code for any other value: `invalid_field` for a body's field,
    ///   `invalid_query` for a query parameter.
    static func platform(_ value: String?, code: String = "invalid_field") throws(HTTPError) -> Platform {
        guard let value else { return .ios }
        guard let platform = Platform(rawValue: value) else {
            throw .badRequest(code: code, message: "platform \(Platform.refusal(of: value))")
        }
        return platform
    }

    /// An iOS `token` registered in APNs `environment`: `sandbox` or `production`, `fallback` when absent.
    /// - Throws: ``HTTPError`` 400 `invalid_field` for any other environment.
    static func registered(
        _ token: PushToken,
        environment: String?,
        default fallback: APNsEnvironment
    ) throws(HTTPError) -> PushToken {
        do { return try token.registered(scope: environment ?? fallback.rawValue) } catch {
            throw .badRequest(code: "invalid_field", message: "environment must be 'sandbox' or 'production'")
        }
    }

    /// How every time in the API is written (``Timestamp/rfc3339(_:)``).
    static func timestamp(_ date: Date) -> String { Timestamp.rfc3339(date) }
}
