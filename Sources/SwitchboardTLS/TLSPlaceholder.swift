/// TLS over OpenSSL (being written).
public enum TLSPlaceholder {}
