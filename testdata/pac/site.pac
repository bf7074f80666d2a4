// A site's proxy auto-config, as grid sites publish them: local names direct, the conditions servers through
// the site's two Squids (then direct), a private network through one Squid, anything else through a fallback.
function FindProxyForURL(url, host) {
    if (isPlainHostName(host) || dnsDomainIs(host, ".local.example")) {
        return "DIRECT";
    }
    if (shExpMatch(host, "*.conditions.example") || localHostOrDomainIs(host, "conditions")) {
        return "PROXY squid1.site.example:3128; PROXY squid2.site.example:3128; DIRECT";
    }
    if (shExpMatch(host, "10.*") && isInNet(host, "10.0.0.0", "255.0.0.0") && dnsDomainLevels(host) == 3) {
        return "PROXY 10.0.0.1:3128";
    }
    if (shExpMatch(url, "http://*:8000/lb/*")) {
        return "HTTP lb-squid.site.example:3128; PROXY lb-squid.site.example:3128";
    }
    if (isInNet(myIpAddress(), "0.0.0.0", "0.0.0.0")) {
        return "PROXY fallback.site.example:3128";
    }
    return "DIRECT";
}
