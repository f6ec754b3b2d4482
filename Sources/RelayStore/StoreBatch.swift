import Foundation

/// Rows of one table as one store exports them and another imports them (``StoreExport``, ``StoreImport``).
public struct StoreBatch: Sendable {
    public var table: StoreTable
    /// A JSON array of row objects with the columns ``StoreTable/columns`` names, in key order.
    public var rows: Data
    /// How many rows ``rows`` holds.
    public var count: Int
    /// The last row (a JSON object), where the next batch of the table starts; nil when the batch is empty.
    public var last: Data?

    public init(table: StoreTable, rows: Data, count: Int, last: Data?) {
        self.table = table
        self.rows = rows
        self.count = count
        self.last = last
    }

    /// A batch of `table` from the JSON texts of its rows, each one object (as a database's JSON functions
    /// write them), joined into one array.
    package init(table: StoreTable, objects: [String]) {
        self.table = table
        self.rows = Data(("[" + objects.joined(separator: ",") + "]").utf8)
        self.count = objects.count
        self.last = objects.last.map { Data($0.utf8) }
    }

    /// The rows decoded as `Row`s, whose properties are the columns in camel case (for an engine that cannot read a JSON column into its own type).
    /// - Throws: ``StoreError`` `.invalidData` when they do not decode.
    package func decoded<Row: Decodable>(as: Row.Type) throws -> [Row] {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do { return try decoder.decode([Row].self, from: rows) } catch {
            throw StoreError(code: .invalidData, message: "\(table.rawValue) rows do not decode: \(error)")
        }
    }
}
