package io.tapline.events.webhook;

import io.tapline.audit.AuditService;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.Page;
import io.tapline.common.api.UuidV7;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.NotFoundException;
import io.tapline.common.error.Problem;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.SecretCipher;
import io.tapline.events.EventType;
import io.tapline.events.api.DeliveryResponse;
import io.tapline.events.api.WebhookRequest;
import io.tapline.events.api.WebhookResponse;
import io.tapline.events.delivery.Delivery;
import io.tapline.events.delivery.DeliveryRepository;
import io.tapline.events.delivery.DeliveryViews;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Webhook subscriptions: create (validated, URL host checked against {@link HostPolicy}, secret
 * sealed), list, read, delete (with its deliveries), and the delivery log. Creates and deletes are
 * audited without the secret or the URL's query.
 */
@ApplicationScoped
@Transactional
public class WebhookService {

    /** Longest URL. */
    public static final int MAX_URL = 2000;
    /** Shortest and longest secret. */
    public static final int MIN_SECRET = 16;
    public static final int MAX_SECRET = 512;
    /** Most pipeline globs per subscription. */
    public static final int MAX_GLOBS = 50;
    private static final Pattern GLOB = Pattern.compile("[a-z0-9_*?-]{1,200}");

    private final WebhookRepository webhooks;
    private final DeliveryRepository deliveries;
    private final SecretCipher cipher;
    private final AuditService audit;
    private final Clock clock;
    private final HostPolicy hosts;

    public WebhookService(WebhookRepository webhooks, DeliveryRepository deliveries, SecretCipher cipher,
                          AuditService audit, Clock clock, TaplineConfig config) {
        this.webhooks = webhooks;
        this.deliveries = deliveries;
        this.cipher = cipher;
        this.audit = audit;
        this.clock = clock;
        this.hosts = new HostPolicy(config.webhooks().allowedHosts());
    }

    /**
     * Creates a subscription.
     *
     * @throws DomainException 400 listing each invalid field (a URL whose host is not allowed included)
     */
    public WebhookResponse create(WebhookRequest req, String actor) {
        List<Problem.FieldError> errors = new ArrayList<>();
        URI url = url(req.url(), errors);
        List<String> types = types(req.events(), errors);
        List<String> globs = globs(req.pipelines(), errors);
        String format = req.format() == null ? "json" : req.format();
        if (!format.equals("json") && !format.equals("slack")) {
            errors.add(new Problem.FieldError("format", "must be json or slack"));
        }
        String secret = req.secret();
        if (secret == null || secret.length() < MIN_SECRET || secret.length() > MAX_SECRET) {
            errors.add(new Problem.FieldError("secret", "is required, " + MIN_SECRET + " to " + MAX_SECRET + " characters"));
        }
        if (req.description() != null && req.description().length() > 200) {
            errors.add(new Problem.FieldError("description", "must be at most 200 characters"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException("The webhook is invalid: " + errors.get(0).field() + " "
                    + errors.get(0).message() + ".", errors);
        }
        Webhook w = new Webhook();
        w.id = UuidV7.next();
        w.url = url.toString();
        w.eventTypes = Jsons.write(types);
        w.pipelines = Jsons.write(globs);
        w.format = format;
        w.secret = cipher.enabled() ? cipher.seal(secret) : secret;
        w.description = req.description();
        w.createdAt = OffsetDateTime.now(clock);
        w.createdBy = actor;
        webhooks.persist(w);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("host", url.getHost());
        details.put("events", types);
        details.put("pipelines", globs);
        details.put("format", format);
        audit.record(actor, "webhook.create", "webhook", w.id.toString(), details);
        return toResponse(w);
    }

    /** Every subscription, newest first. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<WebhookResponse> list() {
        return webhooks.all().stream().map(WebhookService::toResponse).toList();
    }

    /** @throws DomainException 404 */
    @Transactional(Transactional.TxType.SUPPORTS)
    public WebhookResponse get(UUID id) {
        return toResponse(find(id));
    }

    /** Deletes a subscription and its delivery log; pending deliveries are dropped. @throws DomainException 404 */
    public void delete(UUID id, String actor) {
        Webhook w = find(id);
        webhooks.delete(w);
        audit.record(actor, "webhook.delete", "webhook", id.toString(), Map.of("host", URI.create(w.url).getHost()));
    }

    /**
     * A subscription's deliveries, newest first, with their attempts.
     *
     * @throws DomainException 404
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Page<DeliveryResponse> deliveries(UUID id, String cursor, int limit) {
        find(id);
        UUID before = cursor == null || cursor.isBlank() ? null : cursorId(cursor);
        List<Delivery> rows = deliveries.ofWebhook(id, before, limit + 1);
        List<DeliveryRepository.Attempt> attempts = deliveries.attempts(rows.stream().limit(limit).map(d -> d.id).toList());
        return Page.of(rows, limit, d -> d.id.toString(), d -> DeliveryViews.toResponse(d, attempts));
    }

    private Webhook find(UUID id) {
        Webhook w = webhooks.findById(id);
        if (w == null) {
            throw new NotFoundException("Webhook", id.toString());
        }
        return w;
    }

    /** The id in a cursor made by {@link Page#of}. @throws DomainException 400 */
    public static UUID cursorId(String cursor) {
        try {
            return UUID.fromString(Cursors.decode(cursor));
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.field("cursor", "is not a cursor of this list");
        }
    }

    private URI url(String text, List<Problem.FieldError> errors) {
        if (text == null || text.isBlank() || text.length() > MAX_URL) {
            errors.add(new Problem.FieldError("url", "is required, at most " + MAX_URL + " characters"));
            return null;
        }
        try {
            URI u = new URI(text.trim());
            hosts.check(u);
            if (u.getRawFragment() != null) {
                errors.add(new Problem.FieldError("url", "must not have a fragment (#...)"));
            }
            return u;
        } catch (URISyntaxException e) {
            errors.add(new Problem.FieldError("url", "is not a valid URL"));
        } catch (HostPolicy.HostRefusedException e) {
            errors.add(new Problem.FieldError("url", e.getMessage()));
        }
        return null;
    }

    private static List<String> types(List<String> events, List<Problem.FieldError> errors) {
        if (events == null || events.isEmpty()) {
            errors.add(new Problem.FieldError("events", "must name at least one event type"));
            return List.of();
        }
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (int i = 0; i < events.size(); i++) {
            String t = events.get(i);
            if (t == null || EventType.fromId(t).isEmpty()) {
                errors.add(new Problem.FieldError("events[" + i + "]", "must be one of " + known()));
            } else {
                out.add(t);
            }
        }
        return List.copyOf(out);
    }

    private static List<String> globs(List<String> pipelines, List<Problem.FieldError> errors) {
        if (pipelines == null || pipelines.isEmpty()) {
            return List.of("*");
        }
        if (pipelines.size() > MAX_GLOBS) {
            errors.add(new Problem.FieldError("pipelines", "must have at most " + MAX_GLOBS + " globs"));
            return List.of();
        }
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (int i = 0; i < pipelines.size(); i++) {
            String g = pipelines.get(i);
            if (g == null || !GLOB.matcher(g).matches()) {
                errors.add(new Problem.FieldError("pipelines[" + i + "]",
                        "must be a pipeline name glob (lowercase letters, digits, -, _, * and ?)"));
            } else {
                out.add(g);
            }
        }
        return List.copyOf(out);
    }

    private static String known() {
        StringBuilder b = new StringBuilder();
        for (EventType t : EventType.values()) {
            b.append(b.isEmpty() ? "" : ", ").append(t.id());
        }
        return b.toString();
    }

    static WebhookResponse toResponse(Webhook w) {
        return new WebhookResponse(w.id, w.url, Jsons.readStrings(w.eventTypes), Jsons.readStrings(w.pipelines),
                w.format, w.description, true, w.createdAt, w.createdBy);
    }
}
