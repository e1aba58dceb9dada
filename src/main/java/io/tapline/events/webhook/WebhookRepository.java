package io.tapline.events.webhook;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.UUID;

/** Queries of the {@code webhook} table. */
@ApplicationScoped
public class WebhookRepository implements PanacheRepositoryBase<Webhook, UUID> {

    /** Every subscription, newest first (the table is small: matched in memory per event). */
    public List<Webhook> all() {
        return find("order by id desc").list();
    }
}
