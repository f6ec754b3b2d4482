#!/usr/bin/env bash
# Generates the test-only keys and certificates under fixtures/ (committed; run again to renew them).
# Nothing here is a real Apple credential.
set -euo pipefail
cd "$(dirname "$0")/../fixtures"
days=36500
# Test CA and the mock APNs server certificate (127.0.0.1, localhost, mock-apns (docker/compose.yaml) and
# Apple's two hosts).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days $days \
    -subj "/CN=PushRelay Test CA" -keyout tls/ca.key -out tls/ca.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=mock-apns" \
    -keyout tls/server.key -out tls/server.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost,DNS:mock-apns,DNS:api.push.apple.com,DNS:api.sandbox.push.apple.com\nextendedKeyUsage=serverAuth\n' > tls/server.ext
openssl x509 -req -in tls/server.csr -CA tls/ca.pem -CAkey tls/ca.key -CAcreateserial -days $days \
    -extfile tls/server.ext -out tls/server.pem 2>/dev/null
# A client certificate for certificate-based auth tests (Apple's would carry the bundle id as UID).
openssl req -newkey rsa:2048 -nodes -subj "/UID=com.example.chat/CN=Apple Push Services: com.example.chat" \
    -keyout tls/client.key -out tls/client.csr 2>/dev/null
printf 'extendedKeyUsage=clientAuth\n' > tls/client.ext
openssl x509 -req -in tls/client.csr -CA tls/ca.pem -CAkey tls/ca.key -CAcreateserial -days $days \
    -extfile tls/client.ext -out tls/client.pem 2>/dev/null
openssl pkcs12 -export -in tls/client.pem -inkey tls/client.key -passout pass:test -out tls/client.p12
rm -f tls/*.csr tls/*.ext tls/*.srl
# APNs auth keys (.p8, PKCS#8 P-256) for token auth, with their public halves for the mock.
for kid in ABC123DEFG XYZ987WXYZ; do
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out keys/AuthKey_$kid.p8
    openssl pkey -in keys/AuthKey_$kid.p8 -pubout -out keys/AuthKey_$kid.pub.pem
done
echo "fixtures regenerated"
