// Includes for libnghttp2.
#pragma once
#include <nghttp2/nghttp2.h>
