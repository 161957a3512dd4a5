#!/usr/bin/env bash
# tshark-oracle.sh - ground-truth CSV for RoCE / InfiniBand packets, produced by
# tshark's InfiniBand dissector (RoCEv2 = UDP 4791, RoCEv1 = ethertype 0x8915,
# native IB = ERF / IB link types).
#
# usage:
#   tshark-oracle.sh CAPTURE.pcap[ng]            > CAPTURE.oracle.csv
#   tshark-oracle.sh -s CAPTURE.pcap[ng]         # summary (histograms, counters)
#   tshark-oracle.sh -s -c CAPTURE.oracle.csv    # summary from an existing CSV
#
# One CSV line per frame that carries an IB Base Transport Header. Columns:
#   frame        frame number in the capture (1-based, as tshark counts)
#   time_epoch   frame timestamp, seconds since the epoch (tshark frame.time_epoch)
#   frame_len    bytes on the wire (frame.len)
#   transport    rocev2 (UDP), rocev1 (GRH, ethertype 0x8915) or ib (native, has LRH)
#   vlan_id      first 802.1Q VLAN id, empty if untagged
#   vlan_pcp     first 802.1Q priority (PCP), empty if untagged
#   src, dst     IPv4/IPv6 addresses (RoCEv2), GIDs (RoCEv1), or LIDs (native IB)
#   dscp         IP DSCP (IPv4 dsfield / IPv6 traffic class); RoCEv1/IB: GRH tclass>>2
#   ecn          IP ECN bits (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE); RoCEv1/IB: GRH tclass&3
#   udp_sport, udp_dport   UDP ports (RoCEv2 only)
#   opcode       BTH opcode, decimal (e.g. 17 = RC Acknowledge, 129 = CNP)
#   se           BTH solicited event (0/1)
#   migreq       BTH MigReq (0/1)
#   padcnt       BTH pad count
#   tver         BTH transport header version
#   pkey         BTH partition key, decimal (65535 = 0xffff)
#   fecn, becn   bits 7 and 6 of BTH byte 4 (taken from the raw BTH bytes,
#                because this tshark version has no FECN/BECN fields)
#   destqp       BTH destination QP, hex as tshark prints it (0x000045)
#   ackreq       BTH AckReq (0/1)
#   psn          BTH PSN, decimal
#   aeth_syndrome  AETH syndrome byte, decimal; empty if no AETH
#   aeth_type    ACK / RNR_NAK / NAK / RSVD (syndrome bits 6-5)
#   aeth_code    syndrome bits 4-0: credit count (ACK), timer (RNR), NAK code
#                (0 PSN sequence error, 1 invalid request, 2 remote access error,
#                 3 remote operational error, 4 invalid RD request)
#   aeth_msn     AETH MSN, decimal
#   reth_va, reth_rkey, reth_dmalen   RETH fields when present; tshark 4.0 reports the
#                VA and R_Key of an AtomicETH under the same fields, so atomic
#                requests (opcodes 19/20) fill reth_va/reth_rkey too
#   deth_qkey, deth_srcqp             DETH fields when present (UD)
#   immdt        immediate data (hex) when present
#   ieth         invalidate R_Key (hex) when present
#   atomic_swap, atomic_cmp           AtomicETH swap / compare data when present
#   atomicack_orig                    AtomicAckETH original remote data when present
#   icrc         last 4 bytes (ICRC) as tshark prints them (infiniband.invariant.crc);
#                empty for CNPs: tshark 4.0 does not know opcode 129 and shows its
#                16 reserved bytes + ICRC as "Unknown/Vendor Specific Data"
#   icrc_tshark  tshark's verdict on the ICRC, or "unchecked" when this tshark
#                version only displays the value (4.0.x does not verify it)
#   icrc_check   ok / bad / na: ICRC recomputed by this script (IBTA Annex A17 masks:
#                8 x 0xff pseudo-LRH, IPv4 TOS/TTL/checksum or IPv6 TC/flow/hop
#                limit, UDP checksum and BTH byte 4 set to ones; CRC-32 stored
#                little-endian); "na" for RoCEv1/IB, IPv4 options, truncated
#                frames, or when python3 is not installed
#
# Summary (-s) counters: opcode histogram; aeth_ack/aeth_nak/aeth_rnr_nak count AETH
# syndromes (READ responses carry an ACK-type AETH too); cnp = opcode 129;
# ecn_ce = ECN 3; request_dup_psn = RC request (opcodes 0-31 minus 13-18) whose
# (src, dst, destqp, psn, opcode) was already seen; request_psn_gap = heuristic:
# an RC request whose PSN is neither previous+1 nor a repeat (not checked after a
# READ request, whose responses consume several PSNs).
#
# Needs tshark (Debian package "tshark"); python3 only for the icrc_check column.
#
# rdmatop copy: from shared/tools/tshark-oracle.sh, with two changes marked
# "rdmatop:" (ORACLE_TSHARK_OPTS, and the field list read once, or from ORACLE_FIELDS).
set -euo pipefail

summary=0; from_csv=0
while getopts "sc" o; do
  case $o in s) summary=1;; c) from_csv=1;; *) echo "usage: $0 [-s] [-c] FILE" >&2; exit 2;; esac
done
shift $((OPTIND-1))
[ $# -eq 1 ] || { echo "usage: $0 [-s] [-c] FILE" >&2; exit 2; }
in=$1
[ -r "$in" ] || { echo "cannot read $in" >&2; exit 1; }

# rdmatop: extra tshark options (e.g. "-d udp.port==69,infiniband" for RoCE
# that Wireshark's port heuristics give to another protocol).
read -r -a extra <<< "${ORACLE_TSHARK_OPTS:-}"
TS=(tshark -n -o infiniband.rroce.port:4791 "${extra[@]}" -r "$in")

# rdmatop: list tshark's fields once instead of once per field (44x faster),
# or take the list from ORACLE_FIELDS (a file of `tshark -G fields` names)
# when a caller runs this script for many captures.
if [ -n "${ORACLE_FIELDS:-}" ] && [ -r "$ORACLE_FIELDS" ]; then
  FIELDS=$(cat "$ORACLE_FIELDS")
else
  FIELDS=$(tshark -G fields 2>/dev/null | awk -F'\t' '{print $3}')
fi
# HAVE: the fields this script asks for that this tshark knows, found with
# one grep over the list (a grep per field over ~250,000 names was most of
# the script's time).
HAVE=""
have_field() { grep -qxF -- "$1" <<< "$HAVE"; }

make_csv() {
  local tmp; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
  local fields=(frame.number frame.time_epoch frame.len vlan.id vlan.priority
    ip.src ip.dst ipv6.src ipv6.dst infiniband.grh.sgid infiniband.grh.dgid
    infiniband.lrh.slid infiniband.lrh.dlid ip.dsfield.dscp ip.dsfield.ecn
    ipv6.tclass.dscp ipv6.tclass.ecn infiniband.grh.tclass udp.srcport udp.dstport
    infiniband.bth infiniband.bth.opcode infiniband.bth.se infiniband.bth.m
    infiniband.bth.padcnt infiniband.bth.tver infiniband.bth.p_key
    infiniband.bth.destqp infiniband.bth.a infiniband.bth.psn
    infiniband.aeth.syndrome infiniband.aeth.msn infiniband.reth.va
    infiniband.reth.r_key infiniband.reth.dmalen infiniband.deth.q_key
    infiniband.deth.srcqp infiniband.immdt infiniband.ieth
    infiniband.atomiceth.swapdt infiniband.atomiceth.cmpdt
    infiniband.atomicacketh.origremdt infiniband.invariant.crc
    infiniband.invariant.crc.status)
  HAVE=$(printf '%s\n' "$FIELDS" | grep -xF -f <(printf '%s\n' "${fields[@]}") || true)
  local args=() f
  for f in "${fields[@]}"; do
    if have_field "$f"; then args+=(-e "$f"); else args+=(-e frame.marked_absent_"${f//./_}"); fi
  done
  # unknown placeholders would make tshark fail: replace them by an always-empty field
  local a2=() x
  for x in "${args[@]}"; do
    case $x in frame.marked_absent_*) a2+=(frame.comment);; *) a2+=("$x");; esac
  done
  "${TS[@]}" -Y infiniband.bth -T fields -E separator=/t -E occurrence=f "${a2[@]}" \
    > "$tmp/f.tsv" 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }

  # ICRC recomputation (RoCEv2 only)
  : > "$tmp/icrc.tsv"
  if command -v python3 >/dev/null 2>&1; then
    "${TS[@]}" -Y 'infiniband.bth && udp && !infiniband.lrh' -T fields -E separator=/t -E occurrence=f \
      -e frame.number -e ip.version -e ip.hdr_len -e ip.len -e ip.id -e ip.flags \
      -e ip.frag_offset -e ip.proto -e ip.src -e ip.dst -e ipv6.plen -e ipv6.nxt \
      -e ipv6.src -e ipv6.dst -e udp.srcport -e udp.dstport -e udp.length -e udp.payload \
      -e frame.len -e frame.cap_len 2>/dev/null | python3 -c '
import sys, zlib, struct, ipaddress
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    fr = f[0]
    try:
        (ipv, hl, tl, ipid, flags, frag, proto, src, dst, plen, nxt, src6, dst6,
         sp, dp, ulen, pay, flen, clen) = f[1:20]
        if flen != clen: raise ValueError
        pay = bytes.fromhex(pay)
        if len(pay) < 16: raise ValueError
        if src:
            if int(hl) != 20 or int(frag or 0) != 0: raise ValueError
            ip = struct.pack("!BBHHHBBH", 0x45, 0xff, int(tl), int(ipid, 0),
                             (int(flags, 0) & 7) << 13, 0xff, int(proto), 0xffff)
            ip += ipaddress.IPv4Address(src).packed + ipaddress.IPv4Address(dst).packed
        elif src6:
            ip = struct.pack("!IHBB", 0x6fffffff, int(plen), int(nxt), 0xff)
            ip += ipaddress.IPv6Address(src6).packed + ipaddress.IPv6Address(dst6).packed
        else:
            raise ValueError
        udp = struct.pack("!HHHH", int(sp), int(dp), int(ulen), 0xffff)
        bth = bytearray(pay[:-4]); bth[4] = 0xff
        crc = zlib.crc32(b"\xff" * 8 + ip + udp + bytes(bth)) & 0xffffffff
        print(fr + "\t" + ("ok" if struct.pack("<I", crc) == pay[-4:] else "bad"))
    except Exception:
        print(fr + "\tna")
' > "$tmp/icrc.tsv"
  fi

  awk -F'\t' -v OFS=, '
    FILENAME==ARGV[1] { ic[$1]=$2; next }
    BEGIN {
      print "frame,time_epoch,frame_len,transport,vlan_id,vlan_pcp,src,dst,dscp,ecn,udp_sport,udp_dport,opcode,se,migreq,padcnt,tver,pkey,fecn,becn,destqp,ackreq,psn,aeth_syndrome,aeth_type,aeth_code,aeth_msn,reth_va,reth_rkey,reth_dmalen,deth_qkey,deth_srcqp,immdt,ieth,atomic_swap,atomic_cmp,atomicack_orig,icrc,icrc_tshark,icrc_check"
    }
    function h2d(s,   i, n, ch) {
      s=tolower(s); sub(/^0x/, "", s); n=0
      for (i=1;i<=length(s);i++) { ch=index("0123456789abcdef", substr(s,i,1)); if (ch==0) return n; n=n*16+ch-1 }
      return n
    }
    function num(s) { return (s ~ /^0x/) ? h2d(s) : s+0 }
    function hexbyte(s, i) { return h2d(substr(s, 2*i+1, 2)) }
    {
      fr=$1; t=$2; fl=$3; vid=$4; pcp=$5
      # native IB frames (LRH present) may carry IPoIB, so test the LRH first
      if ($12 != "")      { tr="ib" }
      else if ($19 != "") { tr="rocev2" }
      else                { tr="rocev1" }
      sp=$19; dp=$20
      if (tr=="rocev2") {
        src=$6; dst=$7; dscp=$14; ecn=$15
        if (src=="") { src=$8; dst=$9; dscp=$16; ecn=$17 }
      } else {
        sp=""; dp=""; dscp=""; ecn=""
        if (tr=="ib") { src=$12; dst=$13 } else { src=$10; dst=$11 }
        if ($18!="") { tc=num($18); dscp=int(tc/4); ecn=tc%4 }
      }
      bth=$21; gsub(/:/, "", bth)
      fecn=""; becn=""
      if (length(bth) >= 10) { b4=hexbyte(bth, 4); fecn=int(b4/128)%2; becn=int(b4/64)%2 }
      syn=$31; at=""; ac=""
      if (syn != "") {
        s=num(syn); k=int(s/32)%4; ac=s%32
        at=(k==0?"ACK":(k==1?"RNR_NAK":(k==3?"NAK":"RSVD")))
      }
      ist=$44; if (ist=="") ist="unchecked"
      chk=(fr in ic)?ic[fr]:"na"
      print fr,t,fl,tr,vid,pcp,src,dst,dscp,ecn,sp,dp,$22,$23,$24,$25,$26,$27,fecn,becn,$28,$29,$30,syn,at,ac,$32,$33,$34,$35,$36,$37,$38,$39,$40,$41,$42,$43,ist,chk
    }' "$tmp/icrc.tsv" "$tmp/f.tsv"
}

summarize() {
  # reads the oracle CSV on stdin
  awk -F, '
    NR==1 { for (i=1;i<=NF;i++) c[$i]=i; next }
    {
      n++; op=$c["opcode"]; hist[op]++; tr[$c["transport"]]++
      if ($c["aeth_type"]=="NAK") { nak++; nakc[$c["aeth_code"]]++ }
      if ($c["aeth_type"]=="RNR_NAK") rnr++
      if ($c["aeth_type"]=="ACK") ack++
      if (op==129) cnp++
      if ($c["ecn"]=="3") ce++
      if ($c["fecn"]=="1") fecn++
      if ($c["becn"]=="1") becn++
      if ($c["vlan_id"]!="") vlan++
      if ($c["src"] ~ /:/) v6++
      ic[$c["icrc_check"]]++
      # PSN bookkeeping only for RC requests (opcodes 0-31 minus responses 13-18)
      isreq = (op>=0 && op<=31 && !(op>=13 && op<=18))
      if (isreq) {
        key=$c["src"] ">" $c["dst"] "/" $c["destqp"]; psn=$c["psn"]+0
        dk=key "/" psn "/" op
        if (dk in seen) dup++
        # a READ request (12) consumes one PSN per response packet, so the
        # PSN after it is not checked; backward jumps are not counted as gaps
        else if ((key in last) && lastop[key] != 12 && psn != (last[key]+1)%16777216 && !(psn <= last[key] && last[key]-psn < 8388608)) gap++
        seen[dk]=1
        if (!(key in last) || psn > last[key] || last[key]-psn >= 8388608) { last[key]=psn; lastop[key]=op }
      }
      qp[$c["destqp"]]=1
    }
    END {
      printf "packets_with_bth %d\n", n
      for (k in tr) printf "transport %s %d\n", k, tr[k]
      for (k in hist) printf "opcode %s %d\n", k, hist[k]
      printf "destqps %d\n", length(qp)
      printf "aeth_ack %d\naeth_nak %d\naeth_rnr_nak %d\n", ack, nak, rnr
      for (k in nakc) printf "nak_code %s %d\n", k, nakc[k]
      printf "cnp %d\necn_ce %d\nbth_fecn %d\nbth_becn %d\n", cnp, ce, fecn, becn
      printf "vlan_tagged %d\nipv6_or_gid %d\n", vlan, v6
      printf "request_dup_psn %d\nrequest_psn_gap %d\n", dup, gap
      for (k in ic) printf "icrc_check %s %d\n", k, ic[k]
    }' | sort
}

if [ $summary -eq 1 ]; then
  if [ $from_csv -eq 1 ]; then summarize < "$in"; else make_csv | summarize; fi
else
  make_csv
fi
