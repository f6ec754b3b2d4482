/// Writes a model's column list into either engine's SQL.
package enum StoredColumns {
    /// `names` as a SELECT list, each prefixed with `alias.` when one is given (a table joined to others).
    package static func list(_ names: [String], of alias: String?) -> String {
        let prefix = alias.map { "\($0)." } ?? ""
        return names.map { prefix + $0 }.joined(separator: ", ")
    }
}
