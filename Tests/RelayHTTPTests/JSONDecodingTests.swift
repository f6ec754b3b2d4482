import Foundation
import RelayHTTP
import Testing

@Suite struct JSONDecodingTests {
    struct Registration: Decodable {
        struct Payload: Decodable {
            var badge: Int
            var alert: String?
        }
        var userId: String
        var rooms: [String]
        var payload: Payload?
    }

    static func decode(_ json: String, contentType: String? = "application/json") -> HTTPError? {
        var headers = HTTPHeaders()
        if let contentType { headers.add("Content-Type", contentType) }
        let request = try! HTTPRequest(method: "POST", target: "/", headers: headers, body: Data(json.utf8))
        do {
            _ = try request.decode(Registration.self)
            return nil
        } catch let error as HTTPError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func decodesAValidBody() {
        #expect(Self.decode(#"{"userId":"u","rooms":["a"],"payload":{"badge":1}}"#) == nil)
        #expect(Self.decode(#"{"userId":"u","rooms":[]}"#, contentType: nil) == nil)
        #expect(Self.decode(#"{"userId":"u","rooms":[]}"#, contentType: "Application/JSON; charset=utf-8") == nil)
        #expect(Self.decode(#"{"userId":"u","rooms":[]}"#, contentType: "application/merge-patch+json") == nil)
    }

    @Test(arguments: [
        (
            #"{"userId":"u","#, 400, "invalid_json",
            "The request body is not valid JSON: line 1, column 14: string or '}' expected near end of file"
        ),
        ("", 400, "empty_body", "A JSON request body is required"),
        (#"{"rooms":[]}"#, 400, "missing_field", "userId is required"),
        (#"{"userId":null,"rooms":[]}"#, 400, "missing_field", "userId is required"),
        (#"{"userId":"u","rooms":"abc"}"#, 400, "invalid_field", "rooms must be an array"),
        (#"{"userId":"u","rooms":["a",7]}"#, 400, "invalid_field", "rooms[1] must be a string"),
        (
            #"{"userId":"u","rooms":[],"payload":{"badge":"x"}}"#, 400, "invalid_field",
            "payload.badge must be an integer"
        ),
        (#"{"userId":"u","rooms":[],"payload":{}}"#, 400, "missing_field", "payload.badge is required"),
        (#"["not","an","object"]"#, 400, "invalid_field", "body must be an object"),
    ])
    func mapsDecodingErrorsToFieldNamingMessages(json: String, status: Int, code: String, message: String) throws {
        let error = try #require(Self.decode(json))
        #expect(error.status == status)
        #expect(error.code == code)
        #expect(error.message == message)
    }

    @Test(arguments: ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])
    func refusesANonJSONContentType(_ contentType: String) throws {
        let error = try #require(Self.decode(#"{"userId":"u","rooms":[]}"#, contentType: contentType))
        #expect(error.status == 415)
        #expect(error.code == "unsupported_media_type")
    }
}
