extension DittoEvent {
    /// What an operator does once an app's collections were re-fed after the `requeryRequired` at `txnId` (an
    /// app without `apps[].ditto.httpAPI`), as the admin check and the warning say it: a command that finds
    /// the relay's store in the relay's configuration.
    public static func requeryDoneStep(app: String, txnId: UInt64) -> String {
        "run `push-relay storage requery-done --app \(app) --txn-id \(txnId)` with the relay's configuration"
    }
}
