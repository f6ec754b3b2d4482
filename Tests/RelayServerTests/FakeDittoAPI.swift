import Foundation
import RelayHTTP
import RelayTestSupport

/// Ditto's HTTP API as the requery re-read uses it, on a real socket (``RelayTestSupport/TestEndpoint``):
/// `POST <base>/api/v4/store/execute` with `SELECT * FROM <collection> WHERE _id > :after ORDER BY _id LIMIT
/// :limit` answers that page of the collection's documents, in Ditto's answer shape.
enum FakeDittoAPI {
    /// One statement as the fake read it.
    struct Statement: Equatable {
        var collection: String
        var after: String
        var limit: Int
    }

    /// Serves `collections` (name to documents, each with a string `_id`); `ignoringAfter`, always from the
    /// first document, as a broken API would.
    static func serving(_ collections: [String: [[String: Any]]], ignoringAfter: Bool = false) -> TestEndpoint.Answer {
        var stored: [String: [(id: String, json: Data)]] = [:]
        for (name, documents) in collections {
            stored[name] = documents.map {
                ($0["_id"] as! String, try! JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]))
            }
            .sorted { Array($0.id.utf8).lexicographicallyPrecedes(Array($1.id.utf8)) }
        }
        let pages = stored
        return { request in
            guard request.path.hasSuffix("/api/v4/store/execute"), let statement = statement(of: request) else {
                return TestEndpoint.json(["error": ["description": "not a statement this fake knows"]], status: 400)
            }
            let page = (pages[statement.collection] ?? [])
                .filter { ignoringAfter || Array(statement.after.utf8).lexicographicallyPrecedes(Array($0.id.utf8)) }
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
            let after = args["after"] as? String, let limit = args["limit"] as? Int
        else { return nil }
        let words = text.split(separator: " ").map(String.init)
        guard words.count == 13, words[0...2] == ["SELECT", "*", "FROM"],
            Array(words[4...]) == ["WHERE", "_id", ">", ":after", "ORDER", "BY", "_id", "LIMIT", ":limit"]
        else { return nil }
        return Statement(collection: words[3], after: after, limit: limit)
    }
}
