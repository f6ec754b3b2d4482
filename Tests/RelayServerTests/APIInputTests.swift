import Foundation
import RelayCore
import RelayHTTP
import RelayServer
import RelayStore
import Testing

/// Bad input over the real server: every answer is the JSON error shape with the right 4xx, and the server
/// keeps serving.
@Suite struct APIInputTests {
    /// One bad request and what must come back. `raw` is sent as the body as is; `json` is serialized.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var method: String
        var path: String
        var raw: String?
        var authorization: String? = "valid"
        var contentType: String? = nil
        var status: Int
        var code: String
        var mentions: String? = nil
        var description: String { name }
    }

    static let token = String(repeating: "ab", count: 32)
    static let long = String(repeating: "é", count: 129)  // 258 bytes of UTF-8

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static let cases: [Case] = [
        Case(
            name: "malformed JSON",
            method: "POST",
            path: "/v1/devices",
            raw: "{\"token\": ",
            status: 400,
            code: "invalid_json"
        ),
        Case(name: "empty body", method: "POST", path: "/v1/devices", raw: "", status: 400, code: "empty_body"),
        Case(
            name: "NUL in a sender name",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "a", "text": "hi", "senderName": "A\u{0}B"]),
            status: 400,
            code: "invalid_field",
            mentions: "senderName"
        ),
        Case(
            name: "NUL in the text",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "a", "text": "h\u{0}i"]),
            status: 400,
            code: "invalid_field",
            mentions: "text"
        ),
        Case(
            name: "token of the wrong type",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": 5, "userId": "u"]),
            status: 400,
            code: "invalid_field",
            mentions: "token"
        ),
        Case(
            name: "missing userId",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": token]),
            status: 400,
            code: "missing_field",
            mentions: "userId"
        ),
        Case(
            name: "userId of only white space",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": token, "userId": "   "]),
            status: 400,
            code: "invalid_field",
            mentions: "userId"
        ),
        Case(
            name: "rooms not an array",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": token, "userId": "u", "rooms": "r"]),
            status: 400,
            code: "invalid_field",
            mentions: "rooms"
        ),
        Case(
            name: "unknown environment",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": token, "userId": "u", "environment": "staging"]),
            status: 400,
            code: "invalid_field",
            mentions: "environment"
        ),
        Case(
            name: "not JSON content type",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": token, "userId": "u"]),
            contentType: "text/plain",
            status: 415,
            code: "unsupported_media_type"
        ),
        Case(
            name: "iOS 13 description token",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": "{length = 32, bytes = 0xce8be627 2e43e855 ... 8c1f2d0e 4d5e6f70 }", "userId": "u"]),
            status: 400,
            code: "invalid_device_token"
        ),
        Case(
            name: "Data.description token",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": "32 bytes", "userId": "u"]),
            status: 400,
            code: "invalid_device_token"
        ),
        Case(
            name: "non-hex token",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": String(repeating: "zz", count: 32), "userId": "u"]),
            status: 400,
            code: "invalid_device_token"
        ),
        Case(
            name: "odd-length token",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": token + "a", "userId": "u"]),
            status: 400,
            code: "invalid_device_token"
        ),
        Case(
            name: "too short token",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": "abcd", "userId": "u"]),
            status: 400,
            code: "invalid_device_token",
            mentions: "it is 2 (4 hex digits)"
        ),
        Case(
            name: "userId over 256 bytes",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": token, "userId": long]),
            status: 400,
            code: "invalid_field",
            mentions: "userId"
        ),
        Case(
            name: "room id over 256 bytes in the path",
            method: "PUT",
            path: "/v1/rooms/\(String(repeating: "r", count: 257))/members/u",
            raw: nil,
            status: 400,
            code: "invalid_field",
            mentions: "roomId"
        ),
        Case(
            name: "webhook without text",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s"]),
            status: 400,
            code: "missing_field",
            mentions: "text"
        ),
        Case(
            name: "webhook with only white space as text",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s", "text": " \n\t"]),
            status: 400,
            code: "invalid_field",
            mentions: "text"
        ),
        Case(
            name: "webhook with a misspelt field (recipient for recipients)",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s", "text": "hi", "recipient": ["bob"]]),
            status: 400,
            code: "unknown_field",
            mentions: "recipient"
        ),
        Case(
            name: "webhook with a value only some JSON parsers take (a lone surrogate)",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: #"{"roomId":"r","senderId":"s","text":"hi","recipient":["bob"],"z":"\ud800"}"#,
            status: 400,
            code: "invalid_json",
            mentions: "column"
        ),
        Case(
            name: "registration with a number no double holds",
            method: "POST",
            path: "/v1/devices",
            raw:
                #"{"token":"\#(String(repeating: "ab", count: 32))","userId":"u","envirnoment":"production","z":1e999}"#,
            status: 400,
            code: "invalid_json",
            mentions: "column"
        ),
        Case(
            name: "registration with a key twice after an integer past 64 bits",
            method: "POST",
            path: "/v1/devices",
            raw:
                #"{"platform":"web","subscription":{"expirationTime":99999999999999999999},"userId":"alice","userId":"dave"}"#,
            status: 400,
            code: "invalid_json",
            mentions: "duplicate object key"
        ),
        Case(
            name: "registration with a key twice (parsers differ on which value counts)",
            method: "POST",
            path: "/v1/devices",
            raw: #"{"token":"\#(String(repeating: "ab", count: 32))","userId":"alice","userId":"dave"}"#,
            status: 400,
            code: "invalid_json",
            mentions: "duplicate object key near '\"userId\"'"
        ),
        Case(
            name: "web registration with a key twice in a nested object",
            method: "POST",
            path: "/v1/devices",
            raw: #"{"userId":"u","platform":"web","subscription":{"keys":{"auth":"a","auth":"b"}}}"#,
            status: 400,
            code: "invalid_json",
            mentions: "duplicate object key"
        ),
        Case(
            name: "webhook with a misspelt required field",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomid": "r", "senderId": "s", "text": "hi"]),
            status: 400,
            code: "unknown_field",
            mentions: "roomid"
        ),
        Case(
            name: "text webhook with an image's field",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s", "text": "hi", "caption": "a"]),
            status: 400,
            code: "unknown_field",
            mentions: "caption"
        ),
        Case(
            name: "image webhook with text",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "text": "hi"]),
            status: 400,
            code: "unknown_field",
            mentions: "text"
        ),
        Case(
            name: "registration with an unknown field",
            method: "POST",
            path: "/v1/devices",
            raw: json(["token": String(repeating: "ab", count: 32), "userId": "u", "room": ["r"]]),
            status: 400,
            code: "unknown_field",
            mentions: "room"
        ),
        Case(
            name: "image webhook whose imageUrl is not https",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "javascript:alert(1)"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl has no host",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https:///a.jpg"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl has a broken percent escape",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://cdn.example.com/%zz"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl has a character to escape",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://cdn.example.com/<script>"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl has an empty host label",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://a..b/x"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl has a host label with an edge hyphen",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://-a-/x"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl ends in a line break",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://example.com/a.jpg\n"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl carries a user and password",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://user:pass@example.com/a.jpg"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl has a port out of range",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://example.com:99999/a.jpg"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl names an IPv4 literal",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://169.254.169.254/latest/meta-data"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl names an IPv4 address in inet_aton's decimal form",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://2130706433/a.jpg"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl names an IPv6 literal",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://[::1]/a.jpg"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl names localhost",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://img.localhost/a.jpg"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl names a port other than 443",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://example.com:8443/a.jpg"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl names a single-label host",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://intranet/a.jpg"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "image webhook whose imageUrl is not percent-encoded",
            method: "POST",
            path: "/v1/webhooks/did-send-image-message",
            raw: json(["roomId": "r", "senderId": "s", "imageUrl": "https://例え.jp/画像.jpg"]),
            status: 400,
            code: "invalid_field",
            mentions: "imageUrl"
        ),
        Case(
            name: "webhook whose text shows nothing",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s", "text": "\u{200B}\u{0}"]),
            status: 400,
            code: "invalid_field",
            mentions: "text"
        ),
        Case(
            name: "webhook with only white space as roomId",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "   ", "senderId": "s", "text": "hi"]),
            status: 400,
            code: "invalid_field",
            mentions: "roomId"
        ),
        Case(
            name: "webhook without roomId",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["senderId": "s", "text": "t"]),
            status: 400,
            code: "missing_field",
            mentions: "roomId"
        ),
        Case(
            name: "webhook messageId over 256 bytes",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s", "text": "t", "messageId": long]),
            status: 400,
            code: "invalid_field",
            mentions: "messageId"
        ),
        Case(
            name: "webhook recipients of the wrong type",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s", "text": "t", "recipients": [1]]),
            status: 400,
            code: "invalid_field",
            mentions: "recipients"
        ),
        Case(
            name: "webhook with an empty recipients list (more likely unset than meant for nobody)",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s", "text": "t", "recipients": [String]()]),
            status: 400,
            code: "invalid_field",
            mentions: "recipients"
        ),
        Case(
            name: "webhook with a mangled senderDeviceToken",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s", "text": "t", "senderDeviceToken": "32 bytes"]),
            status: 400,
            code: "invalid_device_token",
            mentions: "senderDeviceToken"
        ),
        Case(
            name: "delete a non-hex token",
            method: "DELETE",
            path: "/v1/devices/not-a-token",
            raw: nil,
            status: 400,
            code: "invalid_device_token"
        ),
        Case(
            name: "delete an unknown token",
            method: "DELETE",
            path: "/v1/devices/\(token)",
            raw: nil,
            status: 404,
            code: "not_found"
        ),
        Case(
            name: "notification id not a UUID",
            method: "GET",
            path: "/v1/notifications/nope",
            raw: nil,
            status: 404,
            code: "not_found"
        ),
        Case(
            name: "unknown notification",
            method: "GET",
            path: "/v1/notifications/\(UUID().uuidString)",
            raw: nil,
            status: 404,
            code: "not_found"
        ),
        Case(name: "unknown route", method: "GET", path: "/v1/nothing-here", raw: nil, status: 404, code: "not_found"),
        Case(
            name: "wrong method",
            method: "GET",
            path: "/v1/devices",
            raw: nil,
            status: 405,
            code: "method_not_allowed"
        ),
        Case(
            name: "missing API key",
            method: "GET",
            path: "/v1/users/u/devices",
            raw: nil,
            authorization: nil,
            status: 401,
            code: "unauthorized"
        ),
        Case(
            name: "wrong API key",
            method: "GET",
            path: "/v1/users/u/devices",
            raw: nil,
            authorization: "Bearer not-the-key",
            status: 401,
            code: "unauthorized"
        ),
        Case(
            name: "not a bearer",
            method: "GET",
            path: "/v1/users/u/devices",
            raw: nil,
            authorization: "Basic dTpw",
            status: 401,
            code: "unauthorized"
        ),
        Case(
            name: "a webhook without a key",
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            raw: json(["roomId": "r", "senderId": "s", "text": "t"]),
            authorization: nil,
            status: 401,
            code: "unauthorized"
        ),
    ]

    @Test func badRequestsGetJSONErrorsAndTheServerKeepsServing() async throws {
        try await withRelayAndMock { relay in
            for item in Self.cases {
                var headers: [String: String] = [:]
                if let authorization = item.authorization, authorization != "valid" {
                    headers["Authorization"] = authorization
                }
                if let contentType = item.contentType { headers["Content-Type"] = contentType }
                let response = try await relay.call(
                    item.method,
                    item.path,
                    body: item.raw.map { Data($0.utf8) },
                    authorize: item.authorization != nil,
                    headers: headers
                )
                #expect(response.status == item.status, "\(item.name): \(response.text)")
                let error = response.error
                #expect(error?.code == item.code, "\(item.name): \(response.text)")
                #expect(error.map { !$0.message.isEmpty } == true, "\(item.name)")
                if let field = item.mentions {
                    #expect(error?.message.contains(field) == true, "\(item.name): \(response.text)")
                }
                #expect(!response.text.contains(Self.token), "\(item.name) echoes the token")
            }
            // A body announced over 64 KiB is refused before it is sent.
            let raw = try await relay.rawExchange(
                "POST /v1/devices HTTP/1.1\r\nHost: relay\r\nAuthorization: Bearer \(relay.app.apiKey)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 70000\r\nExpect: 100-continue\r\n"
                    + "Connection: close\r\n\r\n"
            )
            #expect(raw.hasPrefix("HTTP/1.1 413"), "\(raw.prefix(200))")
            let body = raw.components(separatedBy: "\r\n\r\n").last ?? ""
            #expect(APIResponse(status: 413, body: Data(body.utf8)).error?.code == "payload_too_large", "\(body)")
            // Counted under its route, though the router never saw it.
            let tooLarge = #"pushrelay_http_requests_total{route="/v1/devices",method="POST",status="413"}"#
            #expect(try await relay.metrics(until: { $0[tooLarge] == 1 })[tooLarge] == 1)

            let healthy = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": randomToken(), "userId": "after-the-table"]
            )
            #expect(healthy.status == 201)
        }
    }

    /// An unknown field's message lists what that webhook takes: not the other webhook's fields.
    @Test func eachWebhookListsOnlyTheFieldsItTakes() async throws {
        try await withRelayAndMock { relay in
            let text = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "r", "senderId": "s", "text": "hi", "colour": "red"]
            )
            let textMessage = try #require(text.error?.message)
            #expect(text.error?.code == "unknown_field" && textMessage.contains("'colour'"), "\(text.text)")
            #expect(textMessage.contains("text") && textMessage.contains("mentions"), "\(textMessage)")
            #expect(!textMessage.contains("caption") && !textMessage.contains("imageUrl"), "\(textMessage)")
            let image = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-image-message",
                json: ["roomId": "r", "senderId": "s", "colour": "red"]
            )
            let imageMessage = try #require(image.error?.message)
            #expect(
                image.error?.code == "unknown_field" && imageMessage.contains("caption, imageUrl"),
                "\(imageMessage)"
            )
            #expect(!imageMessage.contains(" text,"), "\(imageMessage)")
        }
    }
}
