extension DittoEvent {
    /// The command an operator runs once an app's collections were re-fed after the `requeryRequired` at
    /// `txnId` (an app without `apps[].ditto.httpAPI`), as the admin check and the warning name it.
    public static func requeryDoneCommand(app: String, txnId: UInt64) -> String {
        "push-relay storage requery-done --store LOCATION --app \(app) --txn-id \(txnId)"
    }
}
