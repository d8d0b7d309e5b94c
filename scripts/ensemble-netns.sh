#!/bin/sh
# Three hosts on one machine for the ensemble test and benchmark (root): network namespaces
# <prefix>-studio, <prefix>-alice and <prefix>-bob, each slave joined to the studio by a veth
# pair, the studio's ends on one bridge (a switch), with a multicast route on each so NetJACK2's
# discovery (225.3.19.154) works. No traffic leaves these namespaces.
#   ensemble-netns.sh up PREFIX      make them (10.<n>.0.1 studio, .2 alice, .3 bob)
#   ensemble-netns.sh down PREFIX    remove them and every process inside
#   ensemble-netns.sh cut PREFIX NAME / mend PREFIX NAME   take NAME's link down / up
set -eu
action=$1 prefix=${2:-pj}
net=10.$(( $(printf '%s' "$prefix" | cksum | cut -d' ' -f1) % 200 + 20 )).0
case $action in
up)
    ip netns add "$prefix-studio"
    ip -n "$prefix-studio" link set lo up
    ip -n "$prefix-studio" link add br0 type bridge
    ip -n "$prefix-studio" addr add "$net.1/24" dev br0
    ip -n "$prefix-studio" link set br0 up
    ip -n "$prefix-studio" route add 224.0.0.0/4 dev br0
    host=2
    for name in alice bob; do
        ip netns add "$prefix-$name"
        ip -n "$prefix-$name" link set lo up
        ip link add "s-$name" netns "$prefix-studio" type veth peer name eth0 netns "$prefix-$name"
        ip -n "$prefix-studio" link set "s-$name" master br0 up
        ip -n "$prefix-$name" addr add "$net.$host/24" dev eth0
        ip -n "$prefix-$name" link set eth0 up
        ip -n "$prefix-$name" route add 224.0.0.0/4 dev eth0
        host=$((host + 1))
    done
    echo "$net"
    ;;
down)
    # SIGTERM first: a jackd killed outright keeps its slot in JACK's server registry.
    for name in studio alice bob; do ip netns pids "$prefix-$name" 2>/dev/null | xargs -r kill 2>/dev/null || true; done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        left=$(for name in studio alice bob; do ip netns pids "$prefix-$name" 2>/dev/null; done)
        [ -z "$left" ] && break
        sleep 0.3
    done
    for name in studio alice bob; do
        ns="$prefix-$name"
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns del "$ns" 2>/dev/null || true
    done
    ;;
cut) ip -n "$prefix-studio" link set "s-$3" down ;;
mend) ip -n "$prefix-studio" link set "s-$3" up ;;
*) echo "usage: $0 up|down|cut|mend PREFIX [NAME]" >&2; exit 2 ;;
esac
