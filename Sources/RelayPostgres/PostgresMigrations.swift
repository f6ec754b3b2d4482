/// The PostgreSQL schema as numbered steps, tracked in `relay_schema_version`. Step N brings the version from
/// N-1 to N; every missing step runs in ONE transaction under an advisory lock
/// (``PostgresStore`` `migrate`), so relays starting at once apply each step once. Never edit a released
/// step: append a new one.
///
/// Conventions as in the SQLite schema: times are UNIX epoch MILLISECONDS (`bigint`), so both stores keep
/// the same precision; tokens as their platform has them; `devices.unlinked_topics` is a JSON array of
/// strings (`jsonb`).
enum PostgresMigrations {
    /// The key of the `pg_advisory_xact_lock` held while migrating (any constant the relay alone uses).
    static let lockKey: Int64 = 0x7075_7368_7265_6c79

    /// The first key of an instance's advisory lock (`pg_try_advisory_lock(class, hashtext(id))`), held
    /// while the relay runs (``PostgresStore`` `claimInstance`).
    static let instanceLockClass: Int32 = 0x7072_6c79

    /// The first key of a schema's advisory lock (`hashtext(current_schema())` the second): every relay holds
    /// it shared beside its instance lock, and `storage copy` from the schema holds it exclusive, so a copy
    /// never reads a schema a live relay writes and no relay starts on one a copy reads.
    static let schemaLockClass: Int32 = 0x7072_6c73

    static let steps: [String] = [
        // 1: the schema of the current model. A delivery keeps its notification's id (a claim joins it), its
        // device's user (a device registered again for another user no longer gets the old user's
        // deliveries) and its lease (`lease_until`: claimed rows are locked with SKIP LOCKED, then leased).
        // No foreign key from a delivery to its notification: nothing deletes notifications, and the check is
        // a lookup for every delivery a fan-out inserts (about a third of accepting a 100,000-device room).
        """
        CREATE TABLE devices (
            app_id          text NOT NULL,
            token           text NOT NULL,
            platform        text NOT NULL DEFAULT 'ios' CHECK (platform IN ('ios', 'android')),
            user_id         text NOT NULL,
            environment     text NOT NULL,
            state           text NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'retired')),
            created_at      bigint NOT NULL,
            updated_at      bigint NOT NULL,
            retired_at      bigint,
            retired_reason  text,
            apns_timestamp  bigint,
            unlinked_topics jsonb NOT NULL DEFAULT '[]',
            PRIMARY KEY (app_id, token)
        );
        CREATE INDEX devices_by_user ON devices (app_id, user_id, state);
        CREATE INDEX devices_retired ON devices (app_id, retired_at) WHERE state = 'retired';

        CREATE TABLE room_members (
            app_id    text NOT NULL,
            room_id   text NOT NULL,
            user_id   text NOT NULL,
            muted     boolean NOT NULL DEFAULT false,
            joined_at bigint NOT NULL,
            PRIMARY KEY (app_id, room_id, user_id)
        );
        CREATE INDEX room_members_by_user ON room_members (app_id, user_id);

        CREATE TABLE rooms (
            app_id     text NOT NULL,
            room_id    text NOT NULL,
            membership text NOT NULL CHECK (membership IN ('open', 'closed')),
            updated_at bigint NOT NULL,
            PRIMARY KEY (app_id, room_id)
        );

        CREATE TABLE notifications (
            id          uuid PRIMARY KEY,
            app_id      text NOT NULL,
            kind        text NOT NULL,
            message_id  text,
            room_id     text NOT NULL,
            sender_id   text NOT NULL,
            text        text,
            image_url   text,
            room_name   text,
            sender_name text,
            topic       text NOT NULL,
            expiration  bigint,
            created_at  bigint NOT NULL
        );
        CREATE UNIQUE INDEX notifications_by_message ON notifications (app_id, kind, message_id)
            WHERE message_id IS NOT NULL;

        CREATE TABLE deliveries (
            id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            notification_id uuid NOT NULL,
            app_id          text NOT NULL,
            user_id         text NOT NULL,
            token           text NOT NULL,
            status          text NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'sent', 'failed', 'retired')),
            attempts        integer NOT NULL DEFAULT 0,
            next_attempt_at bigint,
            lease_until     bigint,
            updated_at      bigint,
            sent_at         bigint,
            last_status     integer,
            last_reason     text
        );
        CREATE INDEX deliveries_due ON deliveries (app_id, next_attempt_at, id) WHERE status = 'pending';
        CREATE INDEX deliveries_by_notification ON deliveries (notification_id, id);

        CREATE TABLE feedback (
            id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app_id          text NOT NULL,
            token           text NOT NULL,
            platform        text NOT NULL,
            user_id         text NOT NULL,
            environment     text NOT NULL,
            reason          text NOT NULL,
            apns_timestamp  bigint,
            retired_at      bigint NOT NULL,
            attempts        integer NOT NULL DEFAULT 0,
            next_attempt_at bigint NOT NULL,
            expires_at      bigint NOT NULL,
            lease_until     bigint,
            last_status     integer,
            last_error      text
        );
        CREATE INDEX feedback_due ON feedback (next_attempt_at, id);

        CREATE TABLE idempotency_keys (
            app_id          text NOT NULL,
            scope           text NOT NULL,
            key             text NOT NULL,
            request_hash    bytea NOT NULL,
            notification_id uuid NOT NULL,
            created_at      bigint NOT NULL,
            PRIMARY KEY (app_id, scope, key)
        );
        CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

        CREATE TABLE health (
            id         integer PRIMARY KEY CHECK (id = 1),
            checked_at bigint NOT NULL
        );
        """,
        // 2: a lease names its owner, the instance id of the relay that claimed it, so a relay starting
        // releases only its own leases and one stopping hands back only its own claims. Leases held when this
        // step runs keep no owner and end when they expire (another relay may still be sending them).
        """
        ALTER TABLE deliveries ADD COLUMN lease_owner text;
        ALTER TABLE feedback ADD COLUMN lease_owner text;
        """,
        // 3: state the relays sharing the database keep in it: the APNs provider token of each signing key
        // (renewed under an advisory lock), each sender's webhook bucket (in micro-tokens) and this minute's
        // pushes per sender and recipient, when each periodic job runs next, and notifications by age and
        // keys by notification for the retention job (which deletes finished notifications). Ids are `text`
        // in a deterministic collation: equal only when their bytes are.
        """
        CREATE TABLE provider_tokens (
            team_id   text NOT NULL,
            key_id    text NOT NULL,
            token     text NOT NULL,
            issued_at bigint NOT NULL,
            PRIMARY KEY (team_id, key_id)
        );
        CREATE TABLE rate_buckets (
            app_id       text NOT NULL,
            user_id      text NOT NULL,
            micro_tokens bigint NOT NULL,
            updated_at   bigint NOT NULL,
            PRIMARY KEY (app_id, user_id)
        );
        CREATE INDEX rate_buckets_by_age ON rate_buckets (app_id, updated_at);
        CREATE TABLE rate_pushes (
            app_id       text NOT NULL,
            sender_id    text NOT NULL,
            recipient_id text NOT NULL,
            minute       bigint NOT NULL,
            pushes       integer NOT NULL,
            PRIMARY KEY (app_id, sender_id, recipient_id)
        );
        CREATE INDEX rate_pushes_by_minute ON rate_pushes (minute);
        CREATE TABLE periodic_runs (
            job         text PRIMARY KEY,
            next_run_at bigint NOT NULL,
            owner       text NOT NULL,
            last_run_at bigint NOT NULL
        );
        CREATE INDEX notifications_by_age ON notifications (created_at);
        CREATE INDEX idempotency_keys_by_notification ON idempotency_keys (notification_id);
        """,
        // 4: per-user quotas (as the SQLite schema's step 14). A message id names one message of an app
        // whatever its kind: of earlier notifications sharing one (across kinds) only the first keeps it.
        // Buckets are named (`writes`, every write of a user; `webhooks`) and start again (a missing one is
        // full). `user_usage` counts a user's notifications and stored bytes of the current UTC day; retired
        // devices by retirement time, for the retention job.
        """
        UPDATE notifications AS n SET message_id = NULL WHERE message_id IS NOT NULL AND EXISTS (
            SELECT 1 FROM notifications AS first WHERE first.app_id = n.app_id AND first.message_id = n.message_id
                AND (first.created_at, first.id) < (n.created_at, n.id)
        );
        DROP INDEX notifications_by_message;
        CREATE UNIQUE INDEX notifications_by_message ON notifications (app_id, message_id)
            WHERE message_id IS NOT NULL;
        DROP TABLE rate_buckets;
        CREATE TABLE rate_buckets (
            app_id       text NOT NULL,
            user_id      text NOT NULL,
            bucket       text NOT NULL,
            micro_tokens bigint NOT NULL,
            updated_at   bigint NOT NULL,
            PRIMARY KEY (app_id, user_id, bucket)
        );
        CREATE INDEX rate_buckets_by_age ON rate_buckets (app_id, bucket, updated_at);
        CREATE TABLE user_usage (
            app_id        text NOT NULL,
            user_id       text NOT NULL,
            day           bigint NOT NULL,
            notifications bigint NOT NULL,
            bytes         bigint NOT NULL,
            PRIMARY KEY (app_id, user_id)
        );
        CREATE INDEX user_usage_by_day ON user_usage (day);
        CREATE INDEX devices_by_retirement ON devices (retired_at) WHERE state = 'retired';
        """,
        // 5: a membership records who made it, as in the SQLite schema's step 15 (and with the same rule for
        // earlier rows: `backend` for members of a room whose own rule is closed who joined at or after the
        // rule was set, which only the backend could add; `user` for the rest, which may be users' own).
        """
        ALTER TABLE room_members ADD COLUMN origin text NOT NULL DEFAULT 'user'
            CHECK (origin IN ('user', 'backend'));
        UPDATE room_members AS m SET origin = 'backend' FROM rooms AS r
        WHERE r.app_id = m.app_id AND r.room_id = m.room_id AND r.membership = 'closed'
            AND m.joined_at >= r.updated_at;
        """,
        // 6: the Ditto mirror, as in the SQLite schema's step 16.
        """
        CREATE TABLE ditto_documents (
            app_id     text NOT NULL,
            collection text NOT NULL,
            doc_id     text NOT NULL,
            txn_id     bigint NOT NULL,
            removed    boolean NOT NULL,
            PRIMARY KEY (app_id, collection, doc_id)
        );
        CREATE TABLE ditto_rooms (
            app_id       text NOT NULL,
            collection   text NOT NULL,
            room_id      text NOT NULL,
            is_direct    boolean NOT NULL,
            name         text,
            messages_id  text,
            is_generated boolean NOT NULL,
            participants jsonb NOT NULL,
            PRIMARY KEY (app_id, collection, room_id)
        );
        CREATE INDEX ditto_rooms_by_id ON ditto_rooms (app_id, room_id);
        CREATE INDEX ditto_rooms_by_messages ON ditto_rooms (app_id, messages_id);
        CREATE TABLE ditto_users (
            app_id  text NOT NULL,
            user_id text NOT NULL,
            name    text,
            PRIMARY KEY (app_id, user_id)
        );
        CREATE TABLE ditto_subscriptions (
            app_id  text NOT NULL,
            room_id text NOT NULL,
            user_id text NOT NULL,
            read_at bigint,
            PRIMARY KEY (app_id, room_id, user_id)
        );
        CREATE INDEX ditto_subscriptions_by_user ON ditto_subscriptions (app_id, user_id);
        CREATE TABLE ditto_mentions (
            app_id     text NOT NULL,
            room_id    text NOT NULL,
            message_id text NOT NULL,
            user_id    text NOT NULL,
            PRIMARY KEY (app_id, room_id, message_id, user_id)
        );
        CREATE INDEX ditto_mentions_by_user ON ditto_mentions (app_id, user_id);
        CREATE TABLE ditto_seen_messages (
            app_id     text NOT NULL,
            message_id text NOT NULL,
            txn_id     bigint NOT NULL,
            keep_until bigint NOT NULL,
            PRIMARY KEY (app_id, message_id)
        );
        CREATE INDEX ditto_seen_messages_by_age ON ditto_seen_messages (keep_until);
        """,
        // 7: when a tombstone was written, as in the SQLite schema's step 17.
        """
        ALTER TABLE ditto_documents ADD COLUMN removed_at bigint;
        UPDATE ditto_documents SET removed_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        WHERE removed;
        CREATE INDEX ditto_documents_by_removal ON ditto_documents (app_id, removed_at)
            WHERE removed_at IS NOT NULL;
        """,
        // 8: an app's pending `requeryRequired`, as in the SQLite schema's step 18.
        """
        CREATE TABLE ditto_requeries (
            app_id           text PRIMARY KEY,
            txn_id           bigint NOT NULL,
            completed_txn_id bigint NOT NULL DEFAULT 0,
            requested_at     bigint NOT NULL,
            lease_owner      text,
            lease_until      bigint
        );
        """,
        // 9: notification levels, as in the SQLite schema's step 19 (a muted member is a member at level
        // `none`).
        """
        CREATE TABLE room_levels (
            app_id  text NOT NULL,
            room_id text NOT NULL,
            user_id text NOT NULL,
            level   text NOT NULL CHECK (level IN ('all', 'mentions', 'none')),
            PRIMARY KEY (app_id, room_id, user_id)
        );
        CREATE TABLE user_settings (
            app_id  text NOT NULL,
            user_id text NOT NULL,
            notify  text NOT NULL CHECK (notify IN ('all', 'mentions', 'none')),
            PRIMARY KEY (app_id, user_id)
        );
        INSERT INTO room_levels (app_id, room_id, user_id, level)
        SELECT app_id, room_id, user_id, 'none' FROM room_members WHERE muted;
        ALTER TABLE room_members DROP COLUMN muted;
        """,
        // 10: unread counts, as in the SQLite schema's step 20.
        """
        CREATE TABLE room_messages (
            app_id      text NOT NULL,
            room_id     text NOT NULL,
            message_key text NOT NULL,
            sender_id   text NOT NULL,
            created_at  bigint NOT NULL,
            archived    boolean NOT NULL,
            PRIMARY KEY (app_id, room_id, message_key)
        );
        CREATE INDEX room_messages_by_time ON room_messages (app_id, room_id, created_at, sender_id, archived);
        CREATE INDEX room_messages_by_age ON room_messages (created_at);
        ALTER TABLE room_members ADD COLUMN read_at bigint;
        """,
        // 11: wake budgets, as in the SQLite schema's step 21.
        """
        CREATE TABLE wake_budgets (
            app_id text NOT NULL,
            token  text NOT NULL,
            hour   bigint NOT NULL,
            used   integer NOT NULL,
            PRIMARY KEY (app_id, token)
        );
        CREATE INDEX wake_budgets_by_hour ON wake_budgets (hour);
        """,
        // 12: the grace window and deletes, as in the SQLite schema's step 22.
        """
        ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
        ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
            CHECK (status IN ('pending', 'sent', 'failed', 'retired', 'cancelled'));
        ALTER TABLE notifications ADD COLUMN message_at bigint;
        """,
        // 13: badge updates, as in the SQLite schema's step 23.
        """
        CREATE TABLE badge_updates (
            id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app_id          text NOT NULL,
            token           text NOT NULL,
            user_id         text NOT NULL,
            window_ms       bigint NOT NULL,
            due_at          bigint,
            sent_at         bigint,
            version         bigint NOT NULL,
            claimed_version bigint,
            attempts        integer NOT NULL,
            lease_owner     text,
            lease_until     bigint
        );
        CREATE UNIQUE INDEX badge_updates_by_device ON badge_updates (app_id, token);
        CREATE INDEX badge_updates_due ON badge_updates (due_at) WHERE due_at IS NOT NULL;
        CREATE INDEX badge_updates_idle ON badge_updates (sent_at) WHERE due_at IS NULL;
        """,
        // 14: cached unread totals, as in the SQLite schema's step 24.
        """
        CREATE TABLE unread_totals (
            app_id     text NOT NULL,
            user_id    text NOT NULL,
            from_ditto boolean NOT NULL,
            total      bigint NOT NULL,
            PRIMARY KEY (app_id, user_id)
        );
        """,
        // 15: web devices, as in the SQLite schema's step 25: `address` (a web subscription's JSON, NULL for
        // APNs and FCM) on devices and feedback, and `web` a platform.
        """
        ALTER TABLE devices DROP CONSTRAINT devices_platform_check;
        ALTER TABLE devices ADD CONSTRAINT devices_platform_check CHECK (platform IN ('ios', 'android', 'web'));
        ALTER TABLE devices ADD COLUMN address text;
        ALTER TABLE feedback ADD COLUMN address text;
        """,
        // 16: the pending deliveries of a notification, newest first, for the "notification done" probe
        // (PostgresStore+NotificationsDone.swift); room on each page for a lease's new row version, so a
        // claim's lease update stays on its page (HOT: no index entry is written for it).
        """
        CREATE INDEX deliveries_pending_by_notification ON deliveries (notification_id, id) WHERE status = 'pending';
        ALTER TABLE deliveries SET (fillfactor = 80);
        """,
        // 17: room on each page for a new version of every row on it, for the tables whose rows are updated
        // a page at a time: an update that finds no room on its row's page writes the row elsewhere and an
        // entry in each of the table's indexes, where one that stays on the page (HOT) writes none. A claim
        // leases a run of deliveries inserted together, updating every row of their pages in one transaction
        // (at 40 % an APNs delivery's page holds its leased versions too); a message adds to the unread total
        // of every member of its room. PostgresStoreTests checks both.
        """
        ALTER TABLE deliveries SET (fillfactor = 40);
        ALTER TABLE unread_totals SET (fillfactor = 50);
        """,
        // 18: as the SQLite schema's step 26, a requery sweep's tombstones written without their time.
        """
        UPDATE ditto_documents SET removed_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        WHERE removed AND removed_at IS NULL;
        """,
        // 19: a claim leases what it takes a run at a time, one row of `delivery_leases` per run (as the
        // SQLite schema's step 7; ``RelayStore/LeaseRun``), instead of locking and writing every row it
        // takes: a pending delivery is leased while a live lease's run covers it. Claims of one app take
        // turns under an advisory lock (``PostgresStore`` `claimLockClass`). A delivery row is then written
        // once after its insert, with its result, so its pages are filled again. Dropping the row lease
        // columns stops a relay of an older build from claiming (its statements fail) rather than letting it
        // take rows this one leased; the rows it had in flight are claimed again (at least once).
        """
        CREATE TABLE delivery_leases (
            app_id          text NOT NULL,
            next_attempt_at bigint NOT NULL,
            first_id        bigint NOT NULL,
            last_id         bigint NOT NULL,
            lease_until     bigint NOT NULL,
            lease_owner     text NOT NULL
        );
        CREATE INDEX delivery_leases_by_run ON delivery_leases (app_id, next_attempt_at, last_id);
        ALTER TABLE deliveries DROP COLUMN lease_until, DROP COLUMN lease_owner;
        ALTER TABLE deliveries RESET (fillfactor);
        """,
        // 20: as the SQLite schema's step 5, a notification keeps its first and last delivery id and the index
        // by notification goes (``NotificationDeliveriesSQL``); the pending deliveries' index by notification
        // stays, for the probes that ask whether a notification is done (until step 22).
        """
        ALTER TABLE notifications ADD COLUMN first_delivery_id bigint, ADD COLUMN last_delivery_id bigint;
        UPDATE notifications SET
            first_delivery_id = (SELECT min(id) FROM deliveries WHERE notification_id = notifications.id),
            last_delivery_id = (SELECT max(id) FROM deliveries WHERE notification_id = notifications.id);
        DROP INDEX deliveries_by_notification;
        """,
        // 21: as the SQLite schema's step 27, a user's own room levels by user, and seen message ids cut to
        // what a message's `createdOn` may now extend them to.
        """
        CREATE INDEX room_levels_by_user ON room_levels (app_id, user_id);
        UPDATE ditto_seen_messages SET keep_until = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 173400000
        WHERE keep_until > (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 173400000;
        """,
        // 22: as the SQLite schema, the pending deliveries of a notification are read from its range of ids
        // (``NotificationDeliveriesSQL``), newest first, and the index of them goes: an entry per delivery at
        // its insert, the accept's cost before the first push.
        """
        DROP INDEX deliveries_pending_by_notification;
        """,
        // 23: as the SQLite schema's step 28, read positions by room and time: a claim reads who read a
        // message's room since, once per notification (``RelayStore/ClaimReads``), instead of seeking each
        // recipient's position. The user id rides along, so a read of the range needs no row (SQLite's
        // index holds it as part of the table's key).
        """
        CREATE INDEX room_members_by_read ON room_members (app_id, room_id, read_at) INCLUDE (user_id)
            WHERE read_at IS NOT NULL;
        CREATE INDEX ditto_subscriptions_by_read ON ditto_subscriptions (app_id, room_id, read_at) INCLUDE (user_id)
            WHERE read_at IS NOT NULL;
        """,
        // 24: as the SQLite schema's step 29, the mark of a `storage copy` writing into this store.
        """
        CREATE TABLE store_copies (
            id         integer PRIMARY KEY CHECK (id = 1),
            started_at bigint NOT NULL
        );
        """,
        // 25: as the SQLite schema's step 30, the first message of a JS edit chain on its index rows.
        """
        ALTER TABLE room_messages ADD COLUMN root_key text;
        """,
    ]
}
