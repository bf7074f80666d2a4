// The helper functions a proxy auto-config (PAC) file may call, besides dnsResolve(host) and myIpAddress(),
// which the client defines in Java. Written for Outpost after the functions' published definitions; they only
// compute, except isResolvable and isInNet, which resolve through dnsResolve.

function isPlainHostName(host) {
    return String(host).indexOf('.') < 0;
}

function dnsDomainIs(host, domain) {
    host = String(host).toLowerCase();
    domain = String(domain).toLowerCase();
    return host.length >= domain.length && host.substring(host.length - domain.length) === domain;
}

function localHostOrDomainIs(host, hostdom) {
    host = String(host).toLowerCase();
    hostdom = String(hostdom).toLowerCase();
    return host === hostdom || (host.indexOf('.') < 0 && hostdom.indexOf(host + '.') === 0);
}

function isResolvable(host) {
    return dnsResolve(host) !== null;
}

function dnsDomainLevels(host) {
    return String(host).split('.').length - 1;
}

function convertAddr(ip) {
    var p = String(ip).split('.');
    return ((p[0] & 0xff) << 24 | (p[1] & 0xff) << 16 | (p[2] & 0xff) << 8 | (p[3] & 0xff)) >>> 0;
}

function isInNet(host, pattern, mask) {
    var ip = /^\d+\.\d+\.\d+\.\d+$/.test(host) ? host : dnsResolve(host);
    if (ip === null || !/^\d+\.\d+\.\d+\.\d+$/.test(ip)) {
        return false;
    }
    var m = convertAddr(mask);
    return ((convertAddr(ip) & m) >>> 0) === ((convertAddr(pattern) & m) >>> 0);
}

function shExpMatch(str, shexp) {
    var re = String(shexp).replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    return new RegExp('^' + re + '$').test(String(str));
}

var PAC_DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
var PAC_MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

// The trailing "GMT" argument of the time functions: strips it and says whether it was there.
function pacArgs(args) {
    var a = Array.prototype.slice.call(args);
    var gmt = a.length > 0 && a[a.length - 1] === 'GMT';
    if (gmt) {
        a.pop();
    }
    return {values: a, gmt: gmt};
}

function pacInRange(value, lo, hi) {
    return lo <= hi ? value >= lo && value <= hi : value >= lo || value <= hi;
}

function weekdayRange() {
    var a = pacArgs(arguments);
    var now = new Date();
    var day = a.gmt ? now.getUTCDay() : now.getDay();
    var lo = PAC_DAYS.indexOf(a.values[0]);
    var hi = a.values.length > 1 ? PAC_DAYS.indexOf(a.values[1]) : lo;
    return lo >= 0 && hi >= 0 && pacInRange(day, lo, hi);
}

function timeRange() {
    var a = pacArgs(arguments);
    var now = new Date();
    var h = a.gmt ? now.getUTCHours() : now.getHours();
    var m = a.gmt ? now.getUTCMinutes() : now.getMinutes();
    var s = a.gmt ? now.getUTCSeconds() : now.getSeconds();
    var v = a.values.map(Number);
    switch (v.length) {
        case 1: return h === v[0];
        case 2: return v[0] === v[1] ? h === v[0] : pacInRange(h, v[0], (v[1] + 23) % 24); // up to v[1]:00
        case 4: return pacInRange(h * 60 + m, v[0] * 60 + v[1], v[2] * 60 + v[3]);
        case 6: return pacInRange(h * 3600 + m * 60 + s, v[0] * 3600 + v[1] * 60 + v[2], v[3] * 3600 + v[4] * 60 + v[5]);
        default: return false;
    }
}

function dateRange() {
    var a = pacArgs(arguments);
    var now = new Date();
    var parts = {
        day: a.gmt ? now.getUTCDate() : now.getDate(),
        month: a.gmt ? now.getUTCMonth() : now.getMonth(),
        year: a.gmt ? now.getUTCFullYear() : now.getFullYear()
    };
    // Each argument is a day (1..31), a month name or a year (four digits); compare like with like.
    function kind(x) {
        return typeof x === 'string' ? 'month' : Number(x) > 31 ? 'year' : 'day';
    }
    function value(x) {
        return kind(x) === 'month' ? PAC_MONTHS.indexOf(x) : Number(x);
    }
    var v = a.values;
    if (v.length === 1) {
        return parts[kind(v[0])] === value(v[0]);
    }
    var half = v.length / 2;
    var lo = 0, hi = 0, cur = 0;
    for (var i = 0; i < half; i++) {
        var k = kind(v[i]);
        var scale = k === 'year' ? 10000 : k === 'month' ? 100 : 1;
        lo += value(v[i]) * scale;
        hi += value(v[half + i]) * scale;
        cur += parts[k] * scale;
    }
    return pacInRange(cur, lo, hi);
}
