import RelayCore
import RelayOutbox
import RelayStore

/// The outbox dispatcher as a service: woken by the store's outbox notices (other relays' webhooks too)
/// while it runs, and no longer once it has recorded what it had in flight and handed back what it claimed.
struct DispatcherService: Service {
    let dispatcher: Dispatcher
    let store: any Store

    func run() async {
        let dispatcher = self.dispatcher
        await store.setOutboxWakeHandler { dispatcher.wake() }
        await dispatcher.run()
        await store.setOutboxWakeHandler(nil)
    }
}
