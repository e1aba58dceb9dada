package io.tapline.common.error;

/**
 * A connector started for a request ({@code --discover}, {@code --about}, a connection test) failed
 * or passed its time limit. Maps to 502 {@code connector-failed}. The detail is already masked.
 */
public final class ConnectorFailedException extends DomainException {

    private static final long serialVersionUID = 1L;

    /**
     * @param detail what failed, ending with the connector's last stderr line (masked)
     */
    public ConnectorFailedException(String detail) {
        super(detail);
    }
}
