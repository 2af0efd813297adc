// The SSRF policy by address and by name: every block of the IANA special-purpose registries in
// every textual form, the offline name rules, and resolution through a pluggable resolver.
import { describe, expect, it } from "vitest";
import { parseIPv4, parseIPv6 } from "../../src/core/targets/ip-parse";
import { IPV4_SPECIAL_BLOCKS, IPV6_SPECIAL_BLOCKS } from "../../src/core/targets/special-addresses";
import { resolvedTargetProblem, targetAddressProblem } from "../../src/core/targets/ssrf";

const refuses = (url: string) => targetAddressProblem(url, { allowPrivate: false });

function ipv6Text(value: bigint): string {
  return Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(
    ":",
  );
}

describe("parseIPv4", () => {
  it.each([
    ["127.0.0.1", 0x7f000001],
    ["127.1", 0x7f000001],
    ["10.1.2", 0x0a010002],
    ["2130706433", 0x7f000001],
    ["0x7f000001", 0x7f000001],
    ["0x7f.1", 0x7f000001],
    ["0177.0.0.1", 0x7f000001],
    ["017700000001", 0x7f000001],
    ["0x7F.0x00.0.01", 0x7f000001],
    ["127.0.0.1.", 0x7f000001],
    ["0", 0],
    ["0x", 0],
    ["255.255.255.255", 0xffffffff],
  ])("reads %s", (text, value) => {
    expect(parseIPv4(text)).toBe(value);
  });

  it.each([
    "256.0.0.1",
    "1.2.3.4.5",
    "4294967296",
    "08.0.0.1",
    "0xg.1",
    "example.com",
    "1..2",
    "",
    "1.2.3.256",
  ])("is not an address: %j", (text) => {
    expect(parseIPv4(text)).toBeNull();
  });
});

describe("the IANA special-purpose registries", () => {
  it.each(IPV4_SPECIAL_BLOCKS.map((block) => [block.cidr, block.name]))(
    "refuses the first and last address of %s (%s)",
    (cidr) => {
      const [base = "", bits = "32"] = cidr.split("/");
      const first = parseIPv4(base) ?? -1;
      const last = first + 2 ** (32 - Number(bits)) - 1;
      for (const address of [first, last]) {
        const dotted = [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255].join(
          ".",
        );
        expect(refuses(`http://${dotted}/`), dotted).toMatch(/private address .*refused/);
      }
    },
  );

  it.each(IPV6_SPECIAL_BLOCKS.map((block) => [block.cidr, block.name]))(
    "refuses the first and last address of %s (%s)",
    (cidr, name) => {
      const [base = "", bits = "128"] = cidr.split("/");
      const first = parseIPv6(base);
      expect(first).not.toBeNull();
      const last = (first ?? 0n) | ((1n << BigInt(128 - Number(bits))) - 1n);
      expect(refuses(`http://[${base}]/`)).toMatch(/private address .*refused/);
      // The last address names its block: the first can sit in a more specific one (2001::/32 in 2001::/23).
      expect(refuses(`http://[${ipv6Text(last)}]/`)).toContain(`${name}, ${cidr}`);
    },
  );

  it.each([
    ["http://192.0.2.1/", /documentation \(TEST-NET-1\), 192\.0\.2\.0\/24/],
    ["http://192.88.99.1/", /6to4 relay/],
    ["http://198.51.100.7/", /TEST-NET-2/],
    ["http://203.0.113.9/", /TEST-NET-3/],
    ["http://192.0.0.9/", /Port Control Protocol/],
    ["http://192.31.196.1/", /AS112/],
    ["http://127.0.0.1/", /127\.0\.0\.1 is loopback, 127\.0\.0\.0\/8/],
    ["http://0/", /0\.0\.0\.0 is this host/],
    ["http://169.254.169.254/latest/meta-data/", /cloud metadata/],
    ["http://100.64.0.1/", /carrier-grade NAT/],
    ["http://224.0.0.1/", /multicast/],
    ["http://255.255.255.255/", /broadcast/],
    ["http://2130706433/", /127\.0\.0\.1/], // decimal integer
    ["http://0x7f.1/", /127\.0\.0\.1/], // hex, short form
    ["http://017700000001/", /127\.0\.0\.1/], // octal integer
    ["http://0177.0.0.1/", /127\.0\.0\.1/], // octal octet
    ["http://127.1/", /127\.0\.0\.1/],
    ["http://[::1]/", /loopback/],
    ["http://[0:0:0:0:0:0:0:1]:8080/", /loopback/],
    ["http://[::]/", /unspecified/],
    ["http://[::ffff:127.0.0.1]/", /IPv4-mapped, ::ffff:0:0\/96; it carries 127\.0\.0\.1 \(loopback\)/],
    ["http://[::ffff:0:0]/", /IPv4-mapped/],
    ["http://[::ffff:8.8.8.8]/", /IPv4-mapped/], // mapped forms are refused whatever they carry
    ["http://[::127.0.0.1]/", /outside 2000::\/3.*carries 127\.0\.0\.1/], // IPv4-compatible
    ["http://[64:ff9b::192.168.0.1]/", /NAT64.*carries 192\.168\.0\.1 \(private-use\)/],
    ["http://[64:ff9b:1::a00:1]/", /translation, local use, 64:ff9b:1::\/48/],
    ["http://[100::1]/", /discard-only, 100::\/64/],
    ["http://[2001:db8::1]/", /documentation/],
    ["http://[3fff::1]/", /documentation, 3fff::\/20/],
    ["http://[2002:7f00:1::]/", /6to4.*carries 127\.0\.0\.1/],
    ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", /Teredo/],
    ["http://[2001:1::1]/", /Port Control Protocol anycast, 2001:1::1\/128/], // most specific block
    ["http://[fd12:3456::1]/", /unique-local/],
    ["http://[febf::1]/", /link-local/],
    ["http://[fec0::1]/", /outside 2000::\/3/], // deprecated site-local
    ["http://[ff02::1]/", /outside 2000::\/3/], // multicast
    ["http://[4000::1]/", /outside 2000::\/3/],
  ])("refuses %s", (url, message) => {
    expect(refuses(url)).toMatch(message);
  });

  it.each([
    "https://8.8.8.8/",
    "http://172.15.255.255/", // just below 172.16/12
    "http://172.32.0.1/", // just above
    "http://100.63.255.255/",
    "http://100.128.0.0/",
    "http://192.0.1.255/",
    "http://192.0.3.0/",
    "http://192.88.98.255/",
    "http://192.169.0.1/",
    "http://169.253.1.1/",
    "http://223.255.255.255/",
    "http://[2606:4700:4700::1111]/",
    "http://[2001:4860:4860::8888]/",
    "http://[2001:200::1]/", // just past 2001::/23
    "http://[3fff:1000::1]/", // just past 3fff::/20
  ])("allows %s", (url) => {
    expect(refuses(url)).toBeNull();
  });
});

describe("names", () => {
  it.each([
    ["http://localhost:8787/", /localhost is a private name/],
    ["http://LOCALHOST./", /private name/],
    ["http://localhost.localdomain/", /private name/],
    ["http://app.localhost/", /private name/],
    ["http://metadata.google.internal/computeMetadata/v1/", /private name/],
    ["http://metadata/", /private name/],
    ["http://db.internal/", /private name/],
    ["http://printer.local/", /private name/],
    ["http://router.home.arpa/", /private name/],
    ["http://1.0.0.127.in-addr.arpa/", /private name/],
    ["http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", /localhost is a private name/], // IDNA maps it to localhost
    ["http://%6c%6f%63%61%6c%68%6f%73%74/", /localhost/], // percent-encoded host
    ["http://127.0.0.1.nip.io/", /under nip\.io/],
    ["http://app-7f000001.nip.io/", /under nip\.io/],
    ["http://8.8.8.8.nip.io/", /under nip\.io/], // refused whatever it spells: use the address
    ["http://10-0-0-1.sslip.io/", /under sslip\.io/],
    ["http://--1.sslip.io/", /under sslip\.io/],
    ["http://localtest.me/", /under localtest\.me/],
    ["http://readme.localtest.me/", /under localtest\.me/],
    ["http://x.lvh.me/", /under lvh\.me/],
    ["http://a.localhost.direct/", /under localhost\.direct/],
    ["http://10.0.0.1.traefik.me/", /under traefik\.me/],
    ["http://app.127.0.0.1.example.com/", /embeds 127\.0\.0\.1 \(loopback\)/],
    ["http://ip-10-0-0-1.eu-west-1.example.com/", /embeds 10\.0\.0\.1 \(private-use\)/],
    ["http://169-254-169-254.example.net/", /embeds 169\.254\.169\.254/],
    ["http://vm/", /vm is a single-label name/],
    ["http://db:5432/", /db is a single-label name/],
    ["http://REDIS./", /redis is a single-label name/],
  ])("refuses %s", (url, message) => {
    expect(refuses(url)).toMatch(message);
  });

  it.each([
    "https://example.com/hook",
    "https://localhost.example.com/", // a public name that merely starts with localhost
    "https://internal.example.com/",
    "https://ec2-54-12-3-4.compute-1.amazonaws.com/", // embeds a public address
    "https://build-2024-01-02-03.example.com/", // dashes, but not an address
    "http://evil.com#@127.0.0.1/", // the host is evil.com; the rest is a fragment
  ])("allows %s", (url) => {
    expect(refuses(url)).toBeNull();
  });

  it.each([
    ["http://vm../", /vm\.\. has an empty label/],
    ["http://localhost../", /empty label/],
    ["http://a..b/x", /empty label/],
    ["http://../", /empty label/],
    ["http://./", /empty label/],
    ["https://.example.com/", /empty label/],
    ["http:///hook", /has no host/],
    ["https:/hook", /has no host/],
    ["http:hook", /has no host/],
    ["http:\\\\hook", /has no host/],
    [`https://${"a".repeat(64)}.example.com/`, /labels of at most 63/],
  ])(
    "refuses the malformed host of %s whatever the policy (one check at every entry point)",
    (url, message) => {
      expect(targetAddressProblem(url, { allowPrivate: false })).toMatch(message);
      expect(targetAddressProblem(url, { allowPrivate: true })).toMatch(message);
    },
  );

  it("allows one trailing dot, the fully qualified form", () => {
    expect(targetAddressProblem("https://example.com./hook", { allowPrivate: false })).toBeNull();
    expect(targetAddressProblem("HTTPS://Example.COM/", { allowPrivate: false })).toBeNull();
    expect(targetAddressProblem("http://[2606:4700::1111]/", { allowPrivate: false })).toBeNull();
  });

  it("with allowPrivate lets private addresses and names through but still refuses schemes and credentials", () => {
    expect(targetAddressProblem("http://127.0.0.1:8787/", { allowPrivate: true })).toBeNull();
    expect(targetAddressProblem("http://localhost/", { allowPrivate: true })).toBeNull();
    expect(targetAddressProblem("http://127.0.0.1.nip.io/", { allowPrivate: true })).toBeNull();
    expect(targetAddressProblem("http://vm:8080/", { allowPrivate: true })).toBeNull();
    expect(targetAddressProblem("gopher://127.0.0.1/", { allowPrivate: true })).toMatch(/http or https/);
    expect(targetAddressProblem("http://a:b@127.0.0.1/", { allowPrivate: true })).toMatch(/credentials/);
    expect(targetAddressProblem("https://user@example.com/", { allowPrivate: false })).toMatch(/credentials/);
    expect(targetAddressProblem("http://127.0.0.1:80@evil.com/", { allowPrivate: false })).toMatch(
      /credentials/,
    );
  });
});

describe("resolvedTargetProblem", () => {
  const answering = (addresses: string[]) => {
    const asked: string[] = [];
    const resolveHost = async (name: string) => {
      asked.push(name);
      return addresses;
    };
    return { asked, resolveHost };
  };

  it("refuses a public-looking name whose answer holds any special-purpose address", async () => {
    for (const addresses of [
      ["127.0.0.1"],
      ["8.8.8.8", "10.0.0.5"],
      ["::1"],
      ["::ffff:169.254.169.254"],
      ["0x7f.1"],
    ]) {
      const { resolveHost } = answering(addresses);
      const problem = await resolvedTargetProblem("https://rebind.example.com/hook", {
        allowPrivate: false,
        resolveHost,
      });
      expect(problem, addresses.join()).toMatchObject({ kind: "refused" });
      expect(problem?.error).toMatch(/rebind\.example\.com resolves to a private address/);
    }
  });

  it("allows a name resolving only to public addresses, and asks for the name without a trailing dot", async () => {
    const { asked, resolveHost } = answering(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]);
    expect(
      await resolvedTargetProblem("https://Example.COM./x", { allowPrivate: false, resolveHost }),
    ).toBeNull();
    expect(asked).toEqual(["example.com"]);
  });

  it("does not resolve IP literals, names refused offline, or anything when private targets are allowed", async () => {
    const { asked, resolveHost } = answering(["127.0.0.1"]);
    expect(await resolvedTargetProblem("https://8.8.8.8/", { allowPrivate: false, resolveHost })).toBeNull();
    expect(
      await resolvedTargetProblem("https://[2606:4700::1]/", { allowPrivate: false, resolveHost }),
    ).toBeNull();
    expect(
      await resolvedTargetProblem("http://localhost/", { allowPrivate: false, resolveHost }),
    ).toMatchObject({
      kind: "refused",
    });
    expect(await resolvedTargetProblem("https://x.example/", { allowPrivate: true, resolveHost })).toBeNull();
    expect(asked).toEqual([]);
  });

  it("without a resolver checks the URL as written only (the default)", async () => {
    expect(await resolvedTargetProblem("https://rebind.example.com/", { allowPrivate: false })).toBeNull();
  });

  it("refuses a name the resolver has no address for (NXDOMAIN or NODATA): the host's resolver may still answer it", async () => {
    const { asked, resolveHost } = answering([]);
    expect(
      await resolvedTargetProblem("https://gone.example/", { allowPrivate: false, resolveHost }),
    ).toEqual({
      kind: "refused",
      error:
        "target host gone.example has no public address (the resolver answered no A or AAAA record); refused",
    });
    expect(asked).toEqual(["gone.example"]);
  });

  it("reports a resolver that fails as unresolved, not refused", async () => {
    const resolveHost = async () => {
      throw new Error("DNS over HTTPS answered 503");
    };
    expect(await resolvedTargetProblem("https://x.example/", { allowPrivate: false, resolveHost })).toEqual({
      kind: "unresolved",
      error: "target host x.example could not be resolved: DNS over HTTPS answered 503",
    });
  });
});

describe("targetAddressProblem, asked again", () => {
  it("answers each policy for the same URL as that policy decides", () => {
    const url = "http://127.0.0.1:9000/hook";
    for (let round = 0; round < 2; round++) {
      expect(targetAddressProblem(url, { allowPrivate: false })).toMatch(/loopback/);
      expect(targetAddressProblem(url, { allowPrivate: true })).toBeNull();
      expect(
        targetAddressProblem(url, {
          allowPrivate: false,
          allowedTargets: [{ host: "127.0.0.1", port: 9000 }],
        }),
      ).toBeNull();
      expect(
        targetAddressProblem(url, {
          allowPrivate: false,
          allowedTargets: [{ host: "127.0.0.1", port: 9001 }],
        }),
      ).toMatch(/loopback/);
      expect(targetAddressProblem("ftp://127.0.0.1/", { allowPrivate: true })).toMatch(/http or https/);
    }
  });
});
