import Foundation
import RelayCore
import RelayCurl

/// An app's Ditto HTTP API as the requery re-read uses it: one page of a collection at a time, by keyset
/// (`_id` after the last page's last one, whatever its type, in `_id` order), through `POST <url>/api/v4/store/execute` with the
/// API key as `Authorization: Bearer` (Ditto, "HTTP API: execute a DQL statement"). The key never reaches a
/// log or an error.
struct DittoQueryAPI: Sendable {
    /// Why a page could not be read: no answer, a status other than 200, or an answer that is not Ditto's
    /// JSON. Its text holds no key and no document.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// The answer's fields the re-read reads (Ditto also sends `transactionId`, `queryType`, `warnings`…).
    private struct Answer: Decodable {
        var items: [Item]?
        var error: JSONValue?
    }

    /// One item of a page; `value` nil when the relay reads no value there (nested past
    /// ``RelayCore/JSONValue/maxDepth``, as a Ditto event's document may not be). Its `_id` (any JSON value:
    /// Ditto also allows objects), read apart, places the next page whatever the value.
    private struct Item: Decodable {
        var value: JSONValue?
        var id: JSONValue?
        private enum Keys: String, CodingKey { case id = "_id" }

        init(from decoder: any Decoder) throws {
            value = try? JSONValue(from: decoder)
            id = try? decoder.container(keyedBy: Keys.self).decode(JSONValue.self, forKey: .id)
        }
    }

    /// The statement and its arguments, as the API takes them.
    private struct Statement: Encodable {
        var statement: String
        var args: [String: JSONValue]
    }

    /// One page: the documents the relay keeps, and what places the next page. A document the change stream
    /// would refuse (nested too deep, holding NUL: ``RelayCore/DittoDocument/holdsNUL``, or an `_id` that is
    /// not a string) is passed over, so the re-read reads it as absent, and the rest of the page is read.
    struct Page {
        var documents: [DittoDocument] = []
        /// The items the API answered, documents passed over included.
        var count = 0
        /// The `_id` of the last item answered.
        var lastId: JSONValue?

        /// The items passed over.
        var passedOver: Int { count - documents.count }
    }

    let settings: Configuration.Ditto.HTTPAPI
    /// Each page's limit, connect included.
    var timeout: Duration = .seconds(30)
    /// The largest answer read, in BYTES: a page over it is a failure (lower the page size).
    var maxAnswerBytes = 32 << 20

    /// The statement's endpoint.
    var endpoint: String {
        var base = settings.url
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/api/v4/store/execute"
    }

    /// The documents of `collection` whose `_id` sorts after `after` (nil: from the first), at most `limit`,
    /// in `_id` order.
    /// - Throws: ``Failure``.
    func page(of collection: String, after: JSONValue?, limit: Int) async throws(Failure) -> Page {
        var request = Statement(
            statement: "SELECT * FROM \(collection) ORDER BY _id LIMIT :limit",
            args: ["limit": .number(Double(limit))]
        )
        if let after {
            request.statement = "SELECT * FROM \(collection) WHERE _id > :after ORDER BY _id LIMIT :limit"
            request.args["after"] = after
        }
        let answer: (status: Int, body: Data)
        do {
            answer = try await OutboundHTTP.post(
                url: endpoint,
                body: try JSONEncoder().encode(request),
                headers: [
                    ("Authorization", "Bearer \(settings.apiKey)"), ("Content-Type", "application/json"),
                    ("Accept", "application/json"),
                ],
                timeout: timeout,
                keepingBodyUpTo: maxAnswerBytes
            )
        } catch let error as TransportError {
            throw Failure(description: "no answer from the HTTP API (\(error.code)): \(error.message)")
        } catch {
            throw Failure(description: "the statement cannot be encoded")
        }
        guard answer.status == 200 else { throw Failure(description: "the HTTP API answered \(answer.status)") }
        guard answer.body.count < maxAnswerBytes else {
            throw Failure(
                description: "a page of \(collection) is \(maxAnswerBytes) bytes or more: lower the page size"
            )
        }
        guard let decoded = try? JSONDecoder().decode(Answer.self, from: answer.body) else {
            throw Failure(description: "the HTTP API's answer is not JSON with `items`")
        }
        if let error = decoded.error, error != .null {
            var reason = ""
            if case .object(let fields) = error, let text = fields["description"]?.string {
                reason = ": " + text.prefix(200)
            }
            throw Failure(description: "the HTTP API answered an error\(reason)")
        }
        guard let items = decoded.items else { throw Failure(description: "the HTTP API's answer has no `items`") }
        var page = Page(count: items.count, lastId: items.last?.id)
        page.documents.reserveCapacity(items.count)
        for item in items {
            guard let value = item.value else { continue }
            guard let document = DittoDocument(value) else {
                // A document with an `_id` of another type is passed over, as the change stream counts it
                // invalid; an item with no `_id` is not Ditto's answer.
                guard item.id == nil else { continue }
                throw Failure(description: "an item of \(collection) is not a document with an `_id`")
            }
            if !document.holdsNUL { page.documents.append(document) }
        }
        return page
    }
}
