import RelayCore
import RelayStore

extension DittoApplyCounts {
    /// Reports an applied batch of `app`'s Ditto events, the same for the HTTP route and the Kafka consumer:
    /// counts it in `metrics`, and warns (the txnId only, never an event's content) when it raised the app's
    /// pending requery, saying what happens next.
    public func report(app: String, settings: DittoApplySettings, metrics: RelayMetrics, logger: Logger) {
        metrics.recordDittoEvents(self, app: app)
        guard requeries > 0, let txnId = requeryTxnId else { return }
        let next =
            settings.rereadsOnRequery
            ? "the relay re-reads the rooms and users collections through apps[].ditto.httpAPI"
            : "set apps[].ditto.httpAPI, or re-feed the rooms and users collections and then "
                + DittoEvent.requeryDoneStep(app: app, txnId: txnId)
        logger.warning(
            "Ditto requeryRequired: changes were dropped, the app's mirror is degraded until a re-read",
            ["app.id": app, "ditto.txn_id": txnId, "ditto.next": next]
        )
    }
}
