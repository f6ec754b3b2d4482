import Foundation
import RelayCore
import RelayHTTP
import RelayTestSupport

/// Ditto's HTTP API as the requery re-read uses it, on a real socket (``RelayTestSupport/TestEndpoint``):
/// `POST <base>/api/v4/store/execute` with `SELECT * FROM <collection> [WHERE _id > :after] ORDER BY _id
/// LIMIT :limit` answers that page of the collection's documents, in Ditto's answer shape. `_id`s sort by
/// type first (numbers, then strings, then objects), then strings by their UTF-8 bytes and other values by
/// their JSON text.
enum FakeDittoAPI {
    /// One statement as the fake read it; `after` nil for the first page.
    struct Statement: Equatable {
        var collection: String
        var after: JSONValue?
        var limit: Int
    }

    /// Serves `collections` (name to documents, each with an `_id`); `ignoringAfter`, always from the
    /// first document, as a broken API would.
    static func serving(_ collections: [String: [[String: Any]]], ignoringAfter: Bool = false) -> TestEndpoint.Answer {
        var stored: [String: [(key: [UInt8], json: Data)]] = [:]
        for (name, documents) in collections {
            stored[name] = documents.map { (sortKey($0["_id"]!), json($0)) }
                .sorted { $0.key.lexicographicallyPrecedes($1.key) }
        }
        let pages = stored
        return { request in
            guard request.path.hasSuffix("/api/v4/store/execute"), let statement = statement(of: request) else {
                return TestEndpoint.json(["error": ["description": "not a statement this fake knows"]], status: 400)
            }
            let after = ignoringAfter ? nil : statement.after.map { sortKey(anyValue($0)) }
            let page = (pages[statement.collection] ?? [])
                .filter { item in after.map { $0.lexicographicallyPrecedes(item.key) } ?? true }
                .prefix(statement.limit)
            var body = Data(#"{"transactionId":42,"queryType":"select","items":["#.utf8)
            body.append(Data(page.map(\.json).joined(separator: Data(",".utf8))))
            body.append(Data(#"],"mutatedDocumentIds":[],"warnings":[],"totalWarningsCount":0}"#.utf8))
            return HTTPResponse(status: 200, headers: [("content-type", "application/json")], body: body)
        }
    }

    /// The statement a request carries, or nil when it is not the re-read's.
    static func statement(of request: HTTPRequest) -> Statement? {
        guard let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
            let text = object["statement"] as? String, let args = object["args"] as? [String: Any],
            let limit = args["limit"] as? Int
        else { return nil }
        let words = text.split(separator: " ").map(String.init)
        guard words.count >= 4, words[0...2] == ["SELECT", "*", "FROM"] else { return nil }
        let order = ["ORDER", "BY", "_id", "LIMIT", ":limit"]
        if Array(words[4...]) == order, args["after"] == nil {
            return Statement(collection: words[3], after: nil, limit: limit)
        }
        guard Array(words[4...]) == ["WHERE", "_id", ">", ":after"] + order, let after = args["after"],
            let data = try? JSONSerialization.data(withJSONObject: after, options: [.fragmentsAllowed]),
            let value = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return nil }
        return Statement(collection: words[3], after: value, limit: limit)
    }

    /// The order of an `_id`: its type's rank, then a string's bytes or another value's JSON text.
    private static func sortKey(_ id: Any) -> [UInt8] {
        if let text = id as? String { return [1] + Array(text.utf8) }
        return [id is NSNumber ? 0 : 2] + Array(json(id))
    }

    private static func json(_ value: Any) -> Data {
        try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    }

    /// A decoded value as JSONSerialization gives it.
    private static func anyValue(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let flag): flag
        case .number(let number): number
        case .string(let text): text
        case .array(let values): values.map(anyValue)
        case .object(let members): members.mapValues(anyValue)
        }
    }
}
